"""Why a judge could not produce a judgement.

Every error is raised to the pipeline, which retries the step with Celery (backoff, then
dead-letter); judges never sleep or retry themselves. ``classification`` is the error class the
pipeline records for the failed attempt (seed 001): one of ``judge_timeout``, ``provider_error``
and ``judge_invalid_output``. Subclasses refine the cause for logs and tests without inventing
new classes the pipeline does not know.
"""


class JudgeError(Exception):
    """Base class; ``classification`` feeds the pipeline's error classes (seed 001)."""

    classification = "provider_error"


class JudgeTimeout(JudgeError):
    """The endpoint did not answer within SKILLGATE_LLM_TIMEOUT_S."""

    classification = "judge_timeout"


class JudgeProviderError(JudgeError):
    """The endpoint answered with an error status (5xx, 4xx) or could not be reached."""

    classification = "provider_error"


class JudgeRateLimited(JudgeProviderError):
    """HTTP 429: the provider asks us to slow down; a later retry usually succeeds."""


class JudgeUnreachable(JudgeProviderError):
    """No HTTP answer at all: connection refused, DNS failure, TLS error."""


class JudgeOutputInvalid(JudgeError):
    """The answer was not valid JSON for the schema: garbage, wrong types, missing fields."""

    classification = "judge_invalid_output"


class JudgeOutputTruncated(JudgeOutputInvalid):
    """The model stopped at its token limit before finishing the JSON."""


class JudgeRefused(JudgeOutputInvalid):
    """The model (or the provider's filter) refused to answer."""
