"""Choosing the judge from settings."""

from __future__ import annotations

import pytest

from grading.judges import get_judge, judge_reads_files
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


@pytest.mark.parametrize(("name", "reads_files"), [("heuristic", False), ("llm", True)])
def test_whether_a_judge_reads_the_files_is_known_without_making_it(name, reads_files) -> None:
    assert judge_reads_files(name) is reads_files
    assert get_judge(name).reads_files is reads_files


def test_an_unknown_judge_is_taken_to_read_the_files_and_refused_when_made() -> None:
    assert judge_reads_files("oracle") is True
