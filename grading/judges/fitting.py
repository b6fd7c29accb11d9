"""Fitting the heuristic judge's weights: L2-regularised logistic regression, in plain Python.

The model is ``P(harmful | x) = sigmoid(b + w·x)`` over the features of ``features``. It is fitted
by cyclic coordinate descent (a Newton step per coordinate, each clipped to a trust region),
with every weight kept non-negative — evidence may only lower a score, never raise it — and the
intercept free. Everything is deterministic: samples are visited in the order given and the
number of sweeps is bounded, so the same corpus gives the same weights on any machine.

Samples are weighted so that no single source dominates: within a label, a sample weighs
``1/sqrt(n)`` for a source of ``n`` samples, and each label carries half the total weight. A
corpus holds far more of some sources than of others; unweighted, the fit would learn mostly
what distinguishes its largest benign source from its largest malicious one.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from grading.judges.features import FEATURE_SET, FEATURES
from grading.judges.weights import Weights, sigmoid

REGULARISATION = 1.0
"""L2 penalty on the weights (sample weights average 1): larger values shrink the weights
towards 0, so that a feature seen in a handful of skills cannot carry a large weight."""
PRIOR = 0.1
"""The share of harmful skills among submissions the scores are calibrated for. The fit itself
balances the labels (a corpus's mix says nothing about a registry's); its intercept is then
shifted from even odds to this prior, so that ``1 − score/100`` is the probability that a skill
is harmful if one submission in ten is."""
MAX_SWEEPS = 400
TOLERANCE = 1e-7
MAX_STEP = 2.0


@dataclass(frozen=True)
class Sample:
    """One labelled skill: its feature values, whether it is harmful, and where it came from."""

    values: dict[str, float]
    harmful: bool
    source: str


def sample_weights(samples: Sequence[Sample]) -> list[float]:
    """Per-sample weights: ``1/sqrt(source size)`` within a label, labels balanced, the total
    equal to the number of samples."""
    sizes = Counter((s.harmful, s.source) for s in samples)
    raw = [1.0 / math.sqrt(sizes[(s.harmful, s.source)]) for s in samples]
    totals = {
        label: sum(r for r, s in zip(raw, samples, strict=True) if s.harmful is label)
        for label in (True, False)
    }
    labels_present = sum(1 for total in totals.values() if total > 0)
    scale = len(samples) / max(labels_present, 1)
    return [r / totals[s.harmful] * scale for r, s in zip(raw, samples, strict=True)]


def fit(
    samples: Sequence[Sample],
    *,
    regularisation: float = REGULARISATION,
    prior: float = PRIOR,
    features: Sequence[str] = FEATURES,
) -> Weights:
    """Weights fitted to ``samples`` (see the module docstring)."""
    if not samples:
        raise ValueError("no samples to fit")
    c = sample_weights(samples)
    y = [1.0 if s.harmful else 0.0 for s in samples]
    columns: dict[str, list[tuple[int, float]]] = {name: [] for name in features}
    for index, sample in enumerate(samples):
        for name, value in sample.values.items():
            if name in columns and value:
                columns[name].append((index, value))
    penalty = regularisation
    w = dict.fromkeys(features, 0.0)
    b = _initial_intercept(c, y)
    z = [b] * len(samples)
    for _ in range(MAX_SWEEPS):
        largest = 0.0
        step = _intercept_step(c, y, z)
        b += step
        z = [zi + step for zi in z]
        largest = abs(step)
        for name in features:
            column = columns[name]
            if not column:
                continue
            gradient = penalty * w[name]
            curvature = penalty
            for index, value in column:
                p = sigmoid(z[index])
                gradient += c[index] * (p - y[index]) * value
                curvature += c[index] * p * (1.0 - p) * value * value
            new = max(0.0, w[name] - max(-MAX_STEP, min(MAX_STEP, gradient / curvature)))
            delta = new - w[name]
            if delta:
                w[name] = new
                for index, value in column:
                    z[index] += delta * value
            largest = max(largest, abs(delta))
        if largest < TOLERANCE:
            break
    coefficients = {name: round(value, 6) for name, value in w.items() if value > 0}
    return Weights(
        feature_set=FEATURE_SET,
        intercept=round(b + math.log(prior / (1.0 - prior)), 6),
        coefficients=coefficients,
        fitted={
            "method": "L2 logistic regression, non-negative weights, source-balanced",
            "balanced_intercept": round(b, 6),
            "prior": prior,
            "regularisation": regularisation,
            "samples": len(samples),
            "harmful": sum(1 for s in samples if s.harmful),
            "sources": len({s.source for s in samples}),
        },
    )


def _initial_intercept(c: list[float], y: list[float]) -> float:
    positive = sum(ci * yi for ci, yi in zip(c, y, strict=True))
    total = sum(c)
    rate = min(max(positive / total, 1e-6), 1 - 1e-6)
    return math.log(rate / (1 - rate))


def _intercept_step(c: list[float], y: list[float], z: list[float]) -> float:
    gradient = curvature = 0.0
    for ci, yi, zi in zip(c, y, z, strict=True):
        p = sigmoid(zi)
        gradient += ci * (p - yi)
        curvature += ci * p * (1.0 - p)
    if curvature <= 0:
        return 0.0
    return max(-MAX_STEP, min(MAX_STEP, -gradient / curvature))
