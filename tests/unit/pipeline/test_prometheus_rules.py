"""The alert rules and the Grafana dashboard shipped in ``deploy/`` are built on the metrics
``/metrics`` really serves: Prometheus's own ``promtool`` checks the rules and runs their unit
tests (``alerts_test.yml``: each alert fires on its series after its ``for`` and stays quiet on a
healthy system), checks every dashboard query's syntax, and every metric name either file uses
is found in a scrape of the real endpoint."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[3]
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
ALERT_TESTS = ROOT / "deploy" / "prometheus" / "alerts_test.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "skillgate-operations.json"
METRIC = re.compile(r"\bskillgate_[a-z0-9_]+\b")
TOKEN = "rules-test-token"

pytestmark = pytest.mark.django_db


def promtool(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Debian's promtool (package prometheus, installed by scripts/services.sh)."""
    binary = shutil.which("promtool")
    assert binary, "promtool is missing: scripts/services.sh installs Debian's prometheus"
    return subprocess.run(
        [binary, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def alert_expressions() -> dict[str, str]:
    rules = yaml.safe_load(ALERTS.read_text())
    return {rule["alert"]: rule["expr"] for group in rules["groups"] for rule in group["rules"]}


def dashboard_expressions() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


@pytest.fixture
def scraped_names(settings) -> set[str]:
    """Every metric name of a real scrape of /metrics (families and their samples)."""
    settings.SKILLGATE_METRICS_TOKEN = TOKEN
    settings.SKILLGATE_WORKER_PING_TIMEOUT_S = 0.2
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    names = set()
    for family in text_string_to_metric_families(response.content.decode()):
        names.add(family.name)
        names.update(sample.name for sample in family.samples)
        if family.type == "counter":
            names.add(f"{family.name}_total")
    return names


def test_promtool_accepts_the_rules_and_their_unit_tests_pass():
    checked = promtool("check", "rules", str(ALERTS))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = promtool("test", "rules", ALERT_TESTS.name, cwd=ALERT_TESTS.parent)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_the_rules_cover_what_operators_are_paged_for():
    expressions = alert_expressions()
    assert set(expressions) >= {
        "SkillgateDeadLettersOpen",
        "SkillgateDeadLetterQueueOutOfStep",
        "SkillgateWorkersDown",
        "SkillgateSubmissionsStuck",
        "SkillgateSlaTimeouts",
        "SkillgateReviewsOverdue",
        "SkillgateStageLatencyHigh",
    }
    assert "skillgate_dead_letters_open" in expressions["SkillgateDeadLettersOpen"]
    assert "skillgate_workers_up" in expressions["SkillgateWorkersDown"]
    assert 'quantile="0.95"' in expressions["SkillgateStageLatencyHigh"]


def test_every_dashboard_query_is_valid_promql(tmp_path):
    as_rules = {
        "groups": [
            {
                "name": "dashboard",
                "rules": [
                    {"record": f"dashboard:query_{index}", "expr": expr}
                    for index, expr in enumerate(dashboard_expressions())
                ],
            }
        ]
    }
    path = tmp_path / "dashboard-queries.yml"
    path.write_text(yaml.safe_dump(as_rules))
    checked = promtool("check", "rules", str(path))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_dashboard_is_importable_into_grafana():
    dashboard = json.loads(DASHBOARD.read_text())
    assert [i["name"] for i in dashboard["__inputs"]] == ["DS_PROMETHEUS"]
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        assert panel["datasource"] == {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}
        grid = panel["gridPos"]
        assert grid["x"] + grid["w"] <= 24, panel["title"]
        assert panel["targets"], panel["title"]


def test_every_metric_the_rules_and_dashboard_use_is_served(scraped_names):
    used = {
        name
        for expression in (*alert_expressions().values(), *dashboard_expressions())
        for name in METRIC.findall(expression)
    }
    assert used, "the files name metrics"
    assert used - scraped_names == set(), "named in deploy/ but not served by /metrics"
    assert {"skillgate_workers_up", "skillgate_queue_consumers"} <= scraped_names
