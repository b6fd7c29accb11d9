"""Liveness (the process answers) and readiness (the database and the broker answer), with what
an operator should know at a glance: the workers, which are alive per queue and the consumers
the broker counts, and whether ``submission-dlq`` and the open dead letters agree (a
difference that lasts means the reconciliation sweep is failing).

Neither makes the web process unready: with no worker running, submissions are accepted and
wait in their queue (the body says so, and ``skillgate_workers_up`` alerts on it)."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, JsonResponse

from config.celery import app
from pipeline.fleet import fleet_status
from pipeline.monitoring import dead_letter_queue_status


def _database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:
        return f"{exc.__class__.__name__}: {exc}"
    return None


def _broker() -> str | None:
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:
        return f"{exc.__class__.__name__}: {exc}"
    return None


def readiness() -> dict[str, str]:
    """Each dependency: "ok", or what went wrong when reaching it."""
    return {
        name: error or "ok" for name, error in (("database", _database()), ("broker", _broker()))
    }


def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def dead_letters() -> dict[str, object]:
    """submission-dlq's depth, the open dead letters and their difference, or why unknown."""
    try:
        return dead_letter_queue_status()
    except Exception as exc:
        return {"error": f"{exc.__class__.__name__}: {exc}"}


def readyz(request: HttpRequest) -> JsonResponse:
    checks = readiness()
    ready = all(state == "ok" for state in checks.values())
    body: dict[str, object] = {"status": "ready" if ready else "unavailable", "checks": checks}
    if checks["broker"] == "ok":
        body["workers"] = fleet_status().as_dict()
    if ready:
        body["dead_letters"] = dead_letters()
    return JsonResponse(body, status=200 if ready else 503)
