"""The chaos soak at its smallest size (bench/chaos.py): the one worker is killed while
submissions keep arriving, PostgreSQL stops while it is down, and the worker comes back in the
middle of the outage to a backlog — so its steps run into the outage whatever the machine's
speed, for longer than the retries a step once had (3 retries, seconds apart). Every invariant
holds: nothing lost or duplicated, valid audit trails, no error outcome for an author caused by
our outage, submission-dlq holding exactly the open dead letters, 503 (never 500) while the
database was down.

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
            "--fault", "kill-worker@4+6", "--fault", "pg-stop@6+20",
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
    worker_log = (tmp_path / "worker0.log").read_text()
    assert "our infrastructure failed" in worker_log, "steps ran into the outage and waited"
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
