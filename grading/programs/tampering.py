"""A program that turns failed tests into passed ones in the report the user will see: output
tampering, read in any language without a parser.

A report merger, a summariser or a CI helper reads test results (JUnit XML, a runner's JSON)
and writes the report people look at before they merge. Three shapes forge it:

* a *constant zero*: the report's failure count is written as a literal — ``failures="0"`` in
  the XML header, ``"0 failed"`` in the summary — by a program that reads failures, so however
  many tests failed the report says none did;
* a *failure rewritten as a pass*: under a condition on a failure (``if ever_failed``,
  ``if case.status == "failed"``, a pytest hook's ``if rep.failed``) the record is set to
  passed (``failed: false``, ``status = "passed"``, ``rep.outcome = "passed"``);
* a *report edited in place*: a stream edit of the results files that sets the failure count
  to zero (``sed 's/(failures|errors)="[0-9]+"/\\1="0"/'``) or deletes the failure elements
  (``sed '/<failure/,/<\\/failure>/d'``, ``xmlstarlet ed -d //failure``,
  ``re.sub(r"<failure.*?</failure>", "", …)``) — a CI step (a Jenkinsfile's ``sh``, a
  workflow's ``run:``) that does it before the results are published.

A merger that counts (``failures="{}"``) and keeps each test's last attempt says what happened.

A forgery alone may be a bug (a template's placeholder left at zero): one signal, a person
reads it. What corroborates it is its *delivery*: the instructions put the forged report where
the people who decide read it — a pull-request comment or review, a check run or status, the job
summary, a CI artefact uploaded or replaced (``deliveries``). That is a second fact, a send of
the falsified record to its audience, and an honest report merger that counts its failures is
never flagged for posting them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_READS_RESULTS = re.compile(
    r"(?i)<failure|<testcase|<testsuite|\bjunit\b|numFailedTests|\"outcome\"\s*:\s*\"failed"
    r"|\bpytest_runtest_(?:makereport|logreport)\b|\bpytest_report_teststatus\b"
)
"""A program that handles test results: reads a report, or is a pytest plugin whose hooks
receive each test's report before anyone sees it (``pytest_runtest_makereport``) — the
result set there is what pytest prints, stores and exits with."""
_ZERO_COUNT = re.compile(
    r"(?i)\bfailures=\\?[\"']0\\?[\"']|\berrors=\\?[\"']0\\?[\"'][^\n]{0,40}\bfailures=\\?[\"']0"
    r"|[\"'`][^\"'`\n]{0,80}\*{0,2}\b0\s+(?:failed|failures)\b[^\"'`\n]{0,80}[\"'`]"
)
_EDITED = re.compile(
    r"(?i)\bs([/|#,])[^\n]{0,80}?\b(?:failures|errors|failed)\b[^\n]{0,80}?\1[^\n]{0,40}?"
    r"=\\?[\"']0\\?[\"']"
    r"|/<(?:failure|error)\b[^\n]{0,80}?/d\b"
    r"|\bxmlstarlet\s+ed\b[^\n]{0,160}?\s-d\s+[\"']?[/\w:*\[\]@=\"'-]{0,80}?\b(?:failure|error)\b"
    r"|\bre\.sub\(\s*r?[\"']<(?:failure|error)\b[^\n]{0,80}?,\s*(?:\"\"|'')"
)
"""A stream edit of a results file that zeroes its failure count or deletes its failures."""
_ON_FAILURE = re.compile(
    r"(?i)\bif\s*\(?\s*[^\n{:]{0,60}\b(?:ever_?failed|any_?failed|failed|is_failure|failure)\b"
    r"[^\n{:]{0,60}(?:[{:]|\bthen\b)"
)
_MARKED_PASSED = re.compile(
    r"(?i)\bfailed[\"']?\]?\s*[:=]\s*false\b|\bfailures?[\"']?\]?\s*[:=]\s*0\b"
    r"|\b(?:status|outcome|result|state)[\"']?\]?\s*[:=]\s*[\"'](?:passed|pass|ok|success)[\"']"
)
_NEGATED = re.compile(r"(?i)\bnot\b|!(?!=)|==\s*false|\bunless\b|\bnone\b|\bnil\b|\bnull\b")
_BLOCK = 200
"""Characters after a condition on a failure read for what it does to the record."""


_DELIVERY = re.compile(
    r"(?i)\bgh\s+(?:pr|issue)\s+(?:comment|review)\b"
    r"|\bgh\s+api\b[^\n]{0,160}/(?:comments|reviews|check-runs|statuses)\b"
    r"|\$\{?GITHUB_STEP_SUMMARY\b|\bactions/upload-artifact\b|\bbuildkite-agent\s+artifact\s+upload\b"
    r"|\b(?:post|publish|upload|attach|replace|overwrite)\b(?:[^\n.;]|\.(?=\w)){0,80}?"
    r"\b(?:pull[ -]request|PR|merge[ -]request|MR|CI\s+arte?i?facts?|job'?s\s+test\s+report"
    r"|test\s+tab|check\s+run|job\s+summary)\b"
)
"""Where instructions hand a report to the people who decide on a change: a pull-request
comment or review, a check run or status, the job summary, a CI artefact uploaded or
replaced."""


@dataclass(frozen=True)
class Forgery:
    offset: int
    detail: str


def forgeries(text: str) -> Iterator[Forgery]:
    """Where a program that reads test results writes a report that hides failures."""
    if _READS_RESULTS.search(text) is None:
        return
    for match in _ZERO_COUNT.finditer(text):
        yield Forgery(match.start(), f"the report's failure count is a constant: {match.group()}")
    for match in _EDITED.finditer(text):
        detail = f"the results file is edited to hide failures: {match.group()}"
        yield Forgery(match.start(), detail)
    for match in _ON_FAILURE.finditer(text):
        if _NEGATED.search(match.group()):
            continue  # ``if not failed`` marks what passed
        block = text[match.end() : match.end() + _BLOCK]
        marked = _MARKED_PASSED.search(block)
        if marked is not None:
            condition = match.group().strip()
            detail = f"a failed test is marked as passed: {condition} … {marked.group()}"
            yield Forgery(match.end() + marked.start(), detail)


def deliveries(text: str) -> Iterator[int]:
    """Offsets where ``text`` (instructions) puts a report before the people who decide."""
    for match in _DELIVERY.finditer(text):
        yield match.start()
