"""A submission's audit events as a server-sent event stream, for ``skillgate submit --wait``
and anyone else who wants to follow a submission without polling the API.

Each audit event is sent once, as ``event: state`` with its id (the event's own, increasing
along a submission's trail); when the submission stops moving on its own (published, rejected,
or waiting for a person) an ``event: end`` carries its state and outcome and the stream closes.

A stream's life is bounded (``SKILLGATE_STREAM_MAX_S``, 15 s by default): gunicorn's sync
workers serve one request each, so an unbounded stream would hold a worker as long as a
submission waits. At the bound the stream closes with a comment saying so; the client
reconnects with ``Last-Event-ID`` and gets only the events after it, so nothing is missed or
repeated. Inside its life the stream reads the submission's state and new events every
``SKILLGATE_STREAM_POLL_S`` (two indexed reads), reading the state first, so that when the
state is final every event up to it has been sent.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID

from django.conf import settings

from pipeline.models import Submission, SubmissionStateEvent
from pipeline.states import REVIEW_STATES, TERMINAL_STATES

MEDIA_TYPE = "text/event-stream"
RECONNECT_MS = 1000
KEEP_ALIVE_S = 5.0
_SETTLED = frozenset(TERMINAL_STATES | REVIEW_STATES)


def message(data: Any, event: str = "", event_id: int | None = None) -> str:
    """One server-sent event: optional id and name, the data as one line of JSON."""
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    if event:
        lines.append(f"event: {event}")
    lines.append(f"data: {json.dumps(data, separators=(',', ':'), default=str)}")
    return "\n".join(lines) + "\n\n"


def follow(
    submission_id: UUID,
    after_event_id: int,
    show_event: Callable[[SubmissionStateEvent], dict[str, Any]],
    *,
    max_s: float | None = None,
    poll_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[str]:
    """The stream's text, from the first event after ``after_event_id`` (0: from the start)."""
    max_s = settings.SKILLGATE_STREAM_MAX_S if max_s is None else max_s
    poll_s = settings.SKILLGATE_STREAM_POLL_S if poll_s is None else poll_s
    started = clock()
    quiet_since = started
    last = after_event_id
    yield f"retry: {RECONNECT_MS}\n\n"
    while True:
        row = (
            Submission.objects.filter(pk=submission_id)
            .values("state", "outcome_kind", "outcome_code", "outcome_message")
            .first()
        )
        if row is None:  # cannot happen to a submission once stored; ends the stream cleanly
            return
        for event in SubmissionStateEvent.objects.filter(
            submission_id=submission_id, pk__gt=last
        ).order_by("pk"):
            last = event.pk
            quiet_since = clock()
            yield message(show_event(event), "state", event.pk)
        if row["state"] in _SETTLED:
            outcome = (
                {
                    "kind": row["outcome_kind"],
                    "code": row["outcome_code"],
                    "message": row["outcome_message"],
                }
                if row["outcome_kind"]
                else None
            )
            yield message({"state": row["state"], "outcome": outcome}, "end", last)
            return
        now = clock()
        if now - started >= max_s:
            yield ": this stream ends here; reconnect with Last-Event-ID to go on\n\n"
            return
        if now - quiet_since >= KEEP_ALIVE_S:
            quiet_since = now
            yield ": still waiting\n\n"
        sleep(poll_s)
