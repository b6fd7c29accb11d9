"""The LLM judge: any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama,
llama.cpp…) through the ``openai`` SDK, with JSON-schema output.

The SDK runs with ``max_retries=0``: a failed call raises a ``grading.errors`` exception at once
and the pipeline's Celery task owns retries and backoff.

After strict validation the model's score is only ever lowered, never raised:

* the verdict and score are made consistent, the more severe one winning (a FAIL verdict with
  score 85 becomes 59);
* prompt injection — from Tier 1, or reported by the model itself — caps the score at
  ``pass_min − 1``: a skill that tries to steer agents cannot be auto-approved, even if it also
  steered the judge into praising it;
* a high-confidence high/critical Tier 1 finding caps it the same way: the model may explain
  such evidence away for a reviewer, not for auto-approval.
"""

from __future__ import annotations

import json
import time
from typing import cast

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema

from grading.errors import (
    JudgeOutputInvalid,
    JudgeOutputTruncated,
    JudgeProviderError,
    JudgeRateLimited,
    JudgeRefused,
    JudgeTimeout,
    JudgeUnreachable,
)
from grading.judges.common import is_injection, verdict_for
from grading.judges.prompt import OUTPUT_SCHEMA, PROMPT_VERSION, build_messages
from grading.judges.validation import ModelAnswer, parse_answer
from grading.taxonomy import INJECTION_CATEGORIES
from grading.types import CONFIDENCE_ORDER, SEVERITY_ORDER, Judgement, SkillFiles, Tier1Report

MAX_OUTPUT_TOKENS = 2000


class OpenAICompatibleJudge:
    provider = "openai"
    reads_files = True

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str,
        timeout_s: float,
        pass_min: int = 80,
        concerns_min: int = 60,
    ) -> None:
        self.model = model
        self.version = f"{self.provider}/{model}/prompt-{PROMPT_VERSION.rsplit('/', 1)[-1]}"
        self.pass_min = pass_min
        self.concerns_min = concerns_min
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "not-needed", timeout=timeout_s, max_retries=0
        )

    def judge(self, files: SkillFiles, tier1: Tier1Report) -> Judgement:
        started = time.perf_counter()
        completion = self._complete(build_messages(files, tier1))
        answer = parse_answer(_content_of(completion))
        score, caps = self._capped_score(answer, tier1)
        usage = completion.usage
        return Judgement(
            score=score,
            verdict=verdict_for(score, self.pass_min, self.concerns_min),
            concerns=answer.concerns,
            criteria=answer.criteria,
            confidence=round(answer.confidence, 3),
            provider=self.provider,
            model=completion.model or self.model,
            prompt_version=PROMPT_VERSION,
            duration_ms=round((time.perf_counter() - started) * 1000, 3),
            judge_version=self.version,
            notes={
                "model_score": answer.score,
                "model_verdict": answer.verdict,
                "caps": caps,
                "tokens": usage.total_tokens if usage else None,
            },
        )

    def _complete(self, messages: list[dict[str, str]]) -> ChatCompletion:
        response_format: ResponseFormatJSONSchema = {
            "type": "json_schema",
            "json_schema": {"name": "skill_judgement", "schema": OUTPUT_SCHEMA, "strict": True},
        }
        try:
            return self._client.chat.completions.create(
                model=self.model,
                messages=cast(list[ChatCompletionMessageParam], messages),
                temperature=0,
                max_tokens=MAX_OUTPUT_TOKENS,
                response_format=response_format,
            )
        except openai.APITimeoutError as exc:
            raise JudgeTimeout(f"no answer from {self.model} in time: {exc}") from exc
        except openai.RateLimitError as exc:
            raise JudgeRateLimited(f"rate limited (HTTP 429): {exc}", status=429) from exc
        except openai.APIConnectionError as exc:
            raise JudgeUnreachable(
                f"cannot reach the judge endpoint: {exc} ({exc.__cause__ or 'no cause given'})",
                cause=exc,
            ) from exc
        except openai.APIStatusError as exc:
            raise JudgeProviderError(
                f"judge endpoint answered HTTP {exc.status_code}", status=exc.status_code
            ) from exc
        except (openai.APIError, json.JSONDecodeError) as exc:
            raise JudgeOutputInvalid(f"unusable response from the judge endpoint: {exc}") from exc

    def _capped_score(self, answer: ModelAnswer, tier1: Tier1Report) -> tuple[int, list[str]]:
        """The model's score lowered by the rules in the module docstring, and why."""
        caps: list[str] = []
        score = answer.score
        ceiling = {"PASS": 100, "CONCERNS": self.pass_min - 1, "FAIL": self.concerns_min - 1}
        if score > ceiling[answer.verdict]:
            score = ceiling[answer.verdict]
            caps.append(f"verdict {answer.verdict}")
        reasons = [
            label
            for label, applies in (
                ("prompt injection (tier 1)", any(is_injection(f) for f in tier1.findings)),
                (
                    "prompt injection (judge)",
                    any(c.category in INJECTION_CATEGORIES for c in answer.concerns),
                ),
                (
                    "high-confidence tier 1 evidence",
                    any(_strong(f.severity, f.confidence) for f in tier1.findings),
                ),
            )
            if applies
        ]
        if reasons and score >= self.pass_min:
            score = self.pass_min - 1
            caps.extend(reasons)
        return score, caps


def _strong(severity: str, confidence: str) -> bool:
    return (
        SEVERITY_ORDER[severity] >= SEVERITY_ORDER["high"]
        and CONFIDENCE_ORDER[confidence] >= CONFIDENCE_ORDER["high"]
    )


def _content_of(completion: ChatCompletion) -> str:
    """The answer text, or the reason there is none (truncation, refusal, empty answer)."""
    if not getattr(completion, "choices", None):
        raise JudgeOutputInvalid("the response has no choices")
    choice = completion.choices[0]
    message = choice.message
    if getattr(message, "refusal", None) or choice.finish_reason == "content_filter":
        raise JudgeRefused(f"the model refused: {message.refusal or choice.finish_reason}")
    if choice.finish_reason == "length":
        raise JudgeOutputTruncated("the answer was cut off at the token limit")
    if not message.content:
        raise JudgeOutputInvalid("the answer is empty")
    return message.content
