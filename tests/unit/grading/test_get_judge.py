"""Choosing the judge from settings."""

from __future__ import annotations

import pytest

from grading.judges import get_judge
from grading.judges.heuristic import HeuristicJudge
from grading.judges.llm import OpenAICompatibleJudge


def test_the_heuristic_judge_is_the_default_and_uses_the_policy_thresholds(settings) -> None:
    settings.SKILLGATE_JUDGE = "heuristic"
    settings.SKILLGATE_AUTO_APPROVE_MIN_SCORE = 85
    judge = get_judge()
    assert isinstance(judge, HeuristicJudge)
    assert judge.pass_min == 85


@pytest.mark.parametrize("name", ["openai", "llm", "OpenAI"])
def test_the_llm_judge_is_selected_by_name_and_configured_from_settings(settings, name) -> None:
    settings.SKILLGATE_JUDGE = name
    settings.SKILLGATE_LLM_MODEL = "local-model"
    judge = get_judge()
    assert isinstance(judge, OpenAICompatibleJudge)
    assert judge.model == "local-model"


def test_an_explicit_name_overrides_the_setting(settings) -> None:
    settings.SKILLGATE_JUDGE = "openai"
    assert isinstance(get_judge("heuristic"), HeuristicJudge)


def test_an_unknown_judge_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown judge"):
        get_judge("oracle")
