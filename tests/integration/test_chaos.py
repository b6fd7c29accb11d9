"""The chaos soak at its smallest size (bench/chaos.py): one worker killed, then PostgreSQL
stopped for longer than the retries a step once had (3 retries, seconds apart) while the
worker works through a backlog. Every invariant holds: nothing lost or duplicated, valid audit
trails, no error outcome for an author caused by our outage, submission-dlq holding exactly the
open dead letters, 503 (never 500) while the database was down.

The run has its own PostgreSQL cluster (stopped and started by the run, then dropped) and its
own RabbitMQ vhost: the shared servers are never touched. It needs root, as CI has.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.stack import ROOT

pytestmark = pytest.mark.integration


@pytest.mark.timeout(900)
def test_a_worker_kill_and_a_database_outage_break_no_invariant(tmp_path):
    result = subprocess.run(
        [
            sys.executable, "bench/chaos.py", "-n", "40", "--rate", "5", "--workers", "1",
            "--fault", "kill-worker@2+3", "--fault", "pg-stop@6+20",
            "--settle-timeout", "180", "--logs", str(tmp_path),
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert result.stdout.strip(), result.stderr[-3000:]
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    broken = {name: v["value"] for name, v in figures["invariants"].items() if not v["ok"]}
    assert broken == {}, result.stdout
    assert figures["backlog_cleared_after_last_fault_s"] is not None, result.stdout
    assert figures["settle_after_last_post_s"] is not None, result.stdout
    assert figures["http_statuses"].get("503"), "the outage happened while posting"
    assert figures["accepted"] > 20
    assert figures["failed_attempts"].get("infrastructure"), "steps ran into the outage"
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
