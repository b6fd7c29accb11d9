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

from tests.support.cli import skillgate
from tests.support.rabbitmq import fresh_vhost
from tests.support.stack import ROOT, ManagedProcess, free_port, stack_environment

pytestmark = pytest.mark.e2e

BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class DemoFleet:
    web_url: str
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
            yield DemoFleet(
                f"http://127.0.0.1:{web_port}",
                f"http://127.0.0.1:{flower_port}",
                password,
                honcho,
                log_start,
            )
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


def test_the_banner_says_how_an_author_logs_in_and_submits_and_it_works(
    demo_fleet: DemoFleet, tmp_path: Path
):
    """The banner's own instructions, followed as a new author would: its token logs in, the
    demo folder submits and is followed to its outcome, and the published skill installs."""
    banner = demo_fleet.log().split("Skillgate is ready", 1)[1]
    assert f"skillgate login --registry {demo_fleet.web_url}" in banner
    assert "skillgate submit demo/skills/weather-report --wait" in banner
    key = banner.split("API token (read, submit, yank): ", 1)[1].split()[0]
    home = tmp_path / "home"
    home.mkdir()
    login = skillgate(
        "login", "--registry", demo_fleet.web_url, "--token-stdin", home=home, stdin=key
    )
    assert login.returncode == 0 and "as author" in login.stdout, login.stderr
    submitted = skillgate("submit", "demo/skills/weather-report", "--wait", home=home, timeout=120)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    assert "outcome: verdict PUBLISHED: Published as author/weather-report@" in submitted.stdout
    installed = skillgate(
        "install", "author/weather-report", "--dest", str(tmp_path / "skills"), home=home
    )
    assert installed.returncode == 0, installed.stderr
    assert (tmp_path / "skills" / "weather-report" / "SKILL.md").exists()
