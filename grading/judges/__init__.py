"""Tier 2 judges, chosen by name (setting ``SKILLGATE_JUDGE``): ``heuristic`` (offline, the
default) or ``openai`` (any OpenAI-compatible endpoint, configured by ``SKILLGATE_LLM_*``)."""

from __future__ import annotations

from django.conf import settings

from grading.judges.heuristic import HeuristicJudge
from grading.judges.llm import OpenAICompatibleJudge
from grading.types import Judge

JUDGE_NAMES = ("heuristic", "openai")
_ALIASES = {"llm": "openai", "openai-compatible": "openai"}


def _chosen(name: str | None) -> str:
    chosen = (name or settings.SKILLGATE_JUDGE).strip().lower()
    return _ALIASES.get(chosen, chosen)


def judge_reads_files(name: str | None = None) -> bool:
    """Whether the judge ``get_judge(name)`` gives reads the skill's files (see
    ``Judge.reads_files``), known without making it; True for a name ``get_judge`` refuses, so
    that its refusal comes where it always did."""
    judges: dict[str, type[HeuristicJudge | OpenAICompatibleJudge]] = {
        "heuristic": HeuristicJudge,
        "openai": OpenAICompatibleJudge,
    }
    judge = judges.get(_chosen(name))
    return judge is None or judge.reads_files


def get_judge(name: str | None = None) -> Judge:
    chosen = _chosen(name)
    pass_min = settings.SKILLGATE_AUTO_APPROVE_MIN_SCORE
    concerns_min = settings.SKILLGATE_REVIEW_MIN_SCORE
    if chosen == "heuristic":
        return HeuristicJudge(pass_min=pass_min, concerns_min=concerns_min)
    if chosen == "openai":
        return OpenAICompatibleJudge(
            base_url=settings.SKILLGATE_LLM_BASE_URL,
            model=settings.SKILLGATE_LLM_MODEL,
            api_key=settings.SKILLGATE_LLM_API_KEY,
            timeout_s=settings.SKILLGATE_LLM_TIMEOUT_S,
            pass_min=pass_min,
            concerns_min=concerns_min,
        )
    raise ValueError(f"unknown judge {chosen!r}: choose one of {', '.join(JUDGE_NAMES)}")
