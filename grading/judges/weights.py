"""The heuristic judge's weights: a versioned value, stored as data, injected into the judge.

The weights are fitted to a labelled corpus (``manage.py fit_weights``, see ``fitting``) and
kept in ``data/heuristic-weights.json``. Their version is a hash of what decides a score — the
feature set, the intercept and the weights — so every judgement records exactly which weights
produced it (``heuristic/weights-<12 hex>``), and changing a single weight changes the version.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from grading.judges.features import FEATURE_SET, FEATURES

WEIGHTS_FILE = Path(__file__).with_name("data") / "heuristic-weights.json"
FORMAT = 1


class WeightsError(ValueError):
    """A weights file is malformed or was fitted for another feature set."""


@dataclass(frozen=True)
class Weights:
    """``P(harmful) = sigmoid(intercept + Σ weight[f] × value[f])`` over ``feature_set``.

    Weights are non-negative — evidence can only lower a score — and ``fitted`` says how they
    were obtained (corpus size, regularisation), for the record only: it is not part of the
    version.
    """

    feature_set: str
    intercept: float
    coefficients: Mapping[str, float]
    fitted: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.feature_set != FEATURE_SET:
            raise WeightsError(f"weights for {self.feature_set!r}; the judge reads {FEATURE_SET}")
        unknown = sorted(set(self.coefficients) - set(FEATURES))
        if unknown:
            raise WeightsError(f"unknown features: {', '.join(unknown)}")
        negative = sorted(name for name, value in self.coefficients.items() if value < 0)
        if negative or not all(math.isfinite(v) for v in self.coefficients.values()):
            raise WeightsError(f"weights must be finite and non-negative: {', '.join(negative)}")

    @cached_property
    def digest(self) -> str:
        """Computed once per weights: every judge made (one per judgement) is versioned by it."""
        decisive = {
            "feature_set": self.feature_set,
            "intercept": self.intercept,
            "coefficients": {k: self.coefficients[k] for k in sorted(self.coefficients)},
        }
        canonical = json.dumps(decisive, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]

    @property
    def version(self) -> str:
        return f"weights-{self.digest}"

    def weight(self, feature: str) -> float:
        return float(self.coefficients.get(feature, 0.0))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "feature_set": self.feature_set,
            "intercept": self.intercept,
            "coefficients": {k: self.coefficients[k] for k in sorted(self.coefficients)},
            "fitted": dict(self.fitted),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Weights:
        if data.get("format") != FORMAT:
            raise WeightsError(f"unsupported weights format {data.get('format')!r}")
        return cls(
            feature_set=str(data["feature_set"]),
            intercept=float(data["intercept"]),
            coefficients={str(k): float(v) for k, v in data["coefficients"].items()},
            fitted=dict(data.get("fitted", {})),
        )

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")


def sigmoid(z: float) -> float:
    """The logistic function, without overflow for large ``|z|``."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def load_weights(path: Path) -> Weights:
    return Weights.from_dict(json.loads(path.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def default_weights() -> Weights:
    """The weights shipped with Skillgate (``data/heuristic-weights.json``)."""
    return load_weights(WEIGHTS_FILE)
