"""Strict validation of an LLM judge's answer: exactly the schema, or an error.

A model's output is as untrusted as the skill it read (it may have been steered by it), so
nothing is repaired or guessed: wrong types, missing or extra keys, out-of-range numbers all raise
``JudgeOutputInvalid``. The only leniency is a Markdown code fence around the JSON, which some
OpenAI-compatible servers add even in JSON mode.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from grading.errors import JudgeOutputInvalid
from grading.judges.prompt import SEVERITIES
from grading.taxonomy import CRITERIA_NAMES
from grading.types import Concern

MAX_CONCERNS = 50
MAX_TEXT = 2000
_FENCE = re.compile(r"^```(?:json)?\s*\n(?P<body>.*)\n```$", re.DOTALL)
_TOP_KEYS = {"score", "verdict", "concerns", "criteria", "confidence"}
_CONCERN_KEYS = {"category", "severity", "file", "line", "evidence"}


@dataclass(frozen=True)
class ModelAnswer:
    score: int
    verdict: str
    concerns: tuple[Concern, ...]
    criteria: dict[str, int]
    confidence: float


def parse_answer(content: str) -> ModelAnswer:
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group("body").strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JudgeOutputInvalid(f"answer is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise JudgeOutputInvalid("answer is not a JSON object")
    _exact_keys(data, _TOP_KEYS, "answer")
    score = _integer(data["score"], "score")
    verdict = data["verdict"]
    if verdict not in ("PASS", "CONCERNS", "FAIL"):
        raise JudgeOutputInvalid(f"verdict {verdict!r} is not PASS, CONCERNS or FAIL")
    confidence = data["confidence"]
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise JudgeOutputInvalid("confidence is not a number")
    if not 0 <= confidence <= 1:
        raise JudgeOutputInvalid("confidence is outside 0..1")
    return ModelAnswer(
        score=score,
        verdict=verdict,
        concerns=_concerns(data["concerns"]),
        criteria=_criteria(data["criteria"]),
        confidence=float(confidence),
    )


def _concerns(raw: Any) -> tuple[Concern, ...]:
    if not isinstance(raw, list) or len(raw) > MAX_CONCERNS:
        raise JudgeOutputInvalid(f"concerns must be a list of at most {MAX_CONCERNS}")
    concerns: list[Concern] = []
    for index, item in enumerate(raw):
        where = f"concerns[{index}]"
        if not isinstance(item, dict):
            raise JudgeOutputInvalid(f"{where} is not an object")
        _exact_keys(item, _CONCERN_KEYS, where)
        category, file, evidence = item["category"], item["file"], item["evidence"]
        for name, value in (("category", category), ("file", file), ("evidence", evidence)):
            if not isinstance(value, str) or len(value) > MAX_TEXT:
                raise JudgeOutputInvalid(f"{where}.{name} must be a string of at most {MAX_TEXT}")
        if item["severity"] not in SEVERITIES:
            raise JudgeOutputInvalid(f"{where}.severity {item['severity']!r} is not a severity")
        line = item["line"]
        if line is not None and (isinstance(line, bool) or not isinstance(line, int) or line < 0):
            raise JudgeOutputInvalid(f"{where}.line must be a non-negative integer or null")
        concerns.append(
            Concern(
                category=_category(category),
                severity=item["severity"],
                file=file,
                line=line,
                evidence=evidence,
            )
        )
    return tuple(concerns)


def _criteria(raw: Any) -> dict[str, int]:
    if not isinstance(raw, dict):
        raise JudgeOutputInvalid("criteria is not an object")
    _exact_keys(raw, set(CRITERIA_NAMES), "criteria")
    return {name: _integer(raw[name], f"criteria.{name}") for name in CRITERIA_NAMES}


def _integer(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise JudgeOutputInvalid(f"{name} must be an integer 0..100")
    return value


def _exact_keys(data: dict[str, Any], expected: set[str], where: str) -> None:
    missing, extra = expected - data.keys(), data.keys() - expected
    if missing or extra:
        raise JudgeOutputInvalid(
            f"{where}: missing {sorted(missing) or 'nothing'}, "
            f"unexpected {sorted(extra) or 'nothing'}"
        )


def _category(raw: str) -> str:
    """Categories as snake_case, so 'Prompt Injection' and 'prompt-injection' compare equal."""
    return re.sub(r"[^a-z0-9]+", "_", raw.strip().lower()).strip("_") or "unspecified"
