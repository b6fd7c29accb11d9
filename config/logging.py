"""Log filters: what an operator reads in the web log should be worth reading."""

from __future__ import annotations

import logging


class ClientErrorsWithoutTracebacks(logging.Filter):
    """A 4xx is the client's mistake, answered as designed (a reviewer opening a page they may
    not, an unknown id): keep Django's one-line warning, drop the traceback it attaches."""

    def filter(self, record: logging.LogRecord) -> bool:
        status_code = getattr(record, "status_code", None)
        if record.name == "django.request" and status_code is not None and status_code < 500:
            record.exc_info = None
            record.exc_text = None
        return True


SWEEP_TASK_PREFIXES = ("pipeline.sweeps.", "reviews.sweeps.")
BOOKKEEPING = frozenset({"examined", "folded"})
"""Counts a sweep returns that are not actions: rows looked at, figures folded."""
_ROUTINE_CELERY_LOGGERS = ("celery.app.trace", "celery.worker.strategy", "celery.beat")
_sweep_logger = logging.getLogger("skillgate.sweeps")


class QuietRoutineSweeps(logging.Filter):
    """The sweeps run every 30 seconds to 15 minutes, and Celery logs each run three times at
    INFO (beat sends it, the worker receives it, it succeeded): within minutes that buries
    everything worth reading (the banner of ``make run``). Those lines are dropped for sweep
    tasks; a sweep that acted says what it did (``log_sweep_actions``), and failures keep
    their WARNING and ERROR lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO:
            return True
        return not _task_name(record).startswith(SWEEP_TASK_PREFIXES)


def _task_name(record: logging.LogRecord) -> str:
    """The task a Celery log line is about: worker lines carry it in ``data``, beat's
    "Sending due task NAME (TASK)" in its arguments."""
    data = getattr(record, "data", None)
    if isinstance(data, dict):
        return str(data.get("name", ""))
    if str(record.msg).startswith("Scheduler: Sending due task") and len(record.args or ()) == 2:
        return str(record.args[1])  # type: ignore[index]  # checked: a pair of arguments
    return ""


def quiet_routine_sweeps() -> None:
    """Install the filter on the loggers Celery's routine lines come from (worker and beat)."""
    for name in _ROUTINE_CELERY_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, QuietRoutineSweeps) for f in logger.filters):
            logger.addFilter(QuietRoutineSweeps())


def sweep_actions(result: object) -> dict[str, int]:
    """What a sweep did, from what its task returned (a dict of counts, or one count)."""
    if isinstance(result, bool):
        return {}
    if isinstance(result, int):
        return {"done": result} if result else {}
    if isinstance(result, dict):
        return {
            str(key): value
            for key, value in result.items()
            if key not in BOOKKEEPING and isinstance(value, int) and value
        }
    return {}


def log_sweep_actions(task_name: str, result: object) -> None:
    """One INFO line when a sweep acted (re-dispatched, timed out, sent, resumed…), none when
    it found nothing to do."""
    if not task_name.startswith(SWEEP_TASK_PREFIXES):
        return
    actions = sweep_actions(result)
    if actions:
        _sweep_logger.info(
            "%s: %s", task_name, ", ".join(f"{key} {value}" for key, value in actions.items())
        )
