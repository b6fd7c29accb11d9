"""Operators get a Flower that works: the processes of ``make run`` (the same Procfile, started
by the same process manager, with the same demo session) and Flower lists the worker and the
demo submissions' tasks in the browser.

The fleet runs on the test database and a throw-away vhost, so its worker serves only the demo.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.support.rabbitmq import fresh_vhost
from tests.support.stack import ROOT, ManagedProcess, free_port, stack_environment

pytestmark = pytest.mark.e2e

BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class DemoFleet:
    flower_url: str
    password: str
    process: ManagedProcess
    log_start: int

    def log(self) -> str:
        """This run's lines of the (appended) log."""
        return self.process.log()[self.log_start :]


@pytest.fixture(scope="module")
def demo_fleet(live_db, tmp_path_factory) -> Iterator[DemoFleet]:
    var_dir = tmp_path_factory.mktemp("var")
    web_port, flower_port = free_port(), free_port()
    with fresh_vhost() as broker_url:
        env = stack_environment(
            CELERY_BROKER_URL=broker_url,
            SKILLGATE_VAR_DIR=str(var_dir),
            SKILLGATE_ENV_FILE="",
            SKILLGATE_TASK_EVENTS="true",
            SKILLGATE_WEB_PORT=str(web_port),
            FLOWER_PORT=str(flower_port),
            PATH=f"{BIN}:{stack_environment()['PATH']}",
        )
        subprocess.run(
            [sys.executable, "manage.py", "bootstrap_demo"], cwd=ROOT, env=env, check=True
        )
        password = (var_dir / "secrets" / "admin-password").read_text().strip()
        env["FLOWER_BASIC_AUTH"] = f"admin:{password}"
        honcho = ManagedProcess(
            "make-run-fleet",
            [str(BIN / "honcho"), "start", "--procfile", "Procfile", "--port", str(web_port),
             "web", "worker", "rescan", "flower", "demo"],
            env,
        )  # fmt: skip
        log_start = len(honcho.log())
        honcho.start()
        try:
            honcho.wait_for_log("Skillgate is ready", timeout=180, after=log_start)
            yield DemoFleet(f"http://127.0.0.1:{flower_port}", password, honcho, log_start)
        finally:
            honcho.stop()


def test_flower_lists_the_worker_and_the_demo_submissions_tasks(
    browser: Browser, demo_fleet: DemoFleet, screenshots: Path
):
    assert "weather-report PUBLISHED" in demo_fleet.log()
    context = browser.new_context(
        viewport={"width": 1366, "height": 768},
        http_credentials={"username": "admin", "password": demo_fleet.password},
    )
    page = context.new_page()
    page.goto(f"{demo_fleet.flower_url}/workers")
    for worker in ("pipeline@", "rescan@"):
        expect(page.locator("table#workers-table")).to_contain_text(worker, timeout=30_000)
    expect(page.locator("table#workers-table")).to_contain_text("Online")
    page.screenshot(path=screenshots / "flower-workers.png", full_page=True)

    page.goto(f"{demo_fleet.flower_url}/tasks")
    tasks = page.locator("table#tasks-table")
    for task in ("pipeline.scan", "pipeline.judge", "pipeline.publish"):
        expect(tasks).to_contain_text(task, timeout=30_000)
    expect(tasks).to_contain_text("SUCCESS")
    page.screenshot(path=screenshots / "flower-tasks.png", full_page=True)
    context.close()
