"""Sending a submission's remaining steps to the broker, as one Celery chain of id-only tasks."""

from __future__ import annotations

import logging
from uuid import UUID

from celery import chain, current_app
from django.db import transaction
from django.utils import timezone

from config.celery import FAST_PUBLISH_RETRY_POLICY
from pipeline.models import Submission
from pipeline.states import State
from pipeline.workflow import steps_from

logger = logging.getLogger(__name__)


def dispatch(submission_id: UUID | str, state: str) -> bool:
    """Send the chain of remaining steps, failing fast if the broker is down; False if there
    is nothing to send. The first send from RECEIVED is recorded as ``dispatched_at`` so the
    undelivered sweep knows which submissions never reached the broker."""
    steps = steps_from(state)
    if not steps:
        return False
    signatures = [
        current_app.signature(step.task, args=(str(submission_id),), immutable=True)
        for step in steps
    ]
    chain(*signatures).apply_async(retry_policy=FAST_PUBLISH_RETRY_POLICY)
    if state == State.RECEIVED:
        Submission.objects.filter(pk=submission_id, dispatched_at__isnull=True).update(
            dispatched_at=timezone.now()
        )
    return True


def try_dispatch(submission_id: UUID | str, state: str) -> bool:
    """Dispatch, but leave the submission to the sweeps when the broker is unreachable."""
    try:
        return dispatch(submission_id, state)
    except Exception:
        logger.warning(
            "could not dispatch submission %s from %s; a sweep will send it later",
            submission_id,
            state,
            exc_info=True,
        )
        return False


def dispatch_after_commit(submission_id: UUID | str, state: str) -> None:
    """Dispatch once the surrounding transaction commits, so a worker never sees a missing row."""
    transaction.on_commit(lambda: try_dispatch(submission_id, state))
