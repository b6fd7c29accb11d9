"""Benchmarks do not rot: every script under ``bench/`` runs here at its smallest size, as a
separate process exactly as a person runs it, so a schema or API change that breaks one fails
the suite. Nothing here looks at the figures (they are not figures on a shared CI machine):
a run must finish, exit 0 and end with its JSON line.

Each run gets its own databases (the test database's name + ``_bench``, and that name with the
benchmark's suffix) and a throw-away vhost, through the same environment variables a person
sets to run two benchmarks side by side.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from tests.support.rabbitmq import fresh_vhost
from tests.support.stack import ARTIFACTS, ROOT, database_url

BENCH = ROOT / "bench"
BENIGN = ROOT / "tests" / "fixtures" / "grading" / "benign"
DATABASE_SUFFIXES = ("", "_scale", "_steps", "_rescan")

# Each benchmark at its smallest size: the arguments, and the keys its JSON line must hold.
RUNS: dict[str, tuple[list[str], set[str]]] = {
    "sweeps.py": (["--rows", "1000"], {"sweep_ms_big", "sweep_ms_small", "uses_partial_index"}),
    "steps.py": (["-n", "3"], {"steps"}),
    "pipeline.py": (["-n", "20", "--rate", "20", "--repeats", "1"], {"throughput_ratio"}),
    "rescan.py": (["--versions", "20", "--rate", "2"], {"versions", "failed"}),
    "scale.py": (
        ["--submissions", "2000", "--repeats", "1", "--reseed"],
        {"submissions", "pages"},
    ),
    "tier1.py": (
        ["{corpus}", "--repeat", "1", "--sizes", "50000"],
        {"skills", "median_ms", "p99_ms", "cpu_p99_ms", "crafted_max_ms", "crafted_max_cpu_ms"},
    ),
    "outcome_identity.py": (["{corpus}", "--fixtures", str(BENIGN)], {"items", "outcomes"}),
}


# Benchmarks whose smallest run is a test of its own (it checks more than that the run ends).
RUN_ELSEWHERE = {"chaos.py": ROOT / "tests" / "integration" / "test_chaos.py"}


def test_every_benchmark_script_has_a_smoke_run():
    scripts = {
        path.name
        for path in BENCH.glob("*.py")
        if not path.name.startswith("_") and "__main__" in path.read_text()
    }
    assert scripts == set(RUNS) | set(RUN_ELSEWHERE), "every bench/ script must run in the suite"
    for script, test in RUN_ELSEWHERE.items():
        assert f"bench/{script}" in test.read_text(), f"{test.name} does not run {script}"


@pytest.fixture(scope="module")
def bench_environment(live_db) -> Iterator[dict[str, str]]:
    """The benchmarks' database and vhost of this run, named through the environment."""
    base = urlsplit(database_url())
    bench_url = urlunsplit(base._replace(path=f"{base.path}_bench"))
    with fresh_vhost() as broker_url:
        yield {
            **os.environ,
            "SKILLGATE_BENCH_DATABASE_URL": bench_url,
            "SKILLGATE_BENCH_BROKER_URL": broker_url,
            "SKILLGATE_ENV_FILE": "",
            "PYTHONUNBUFFERED": "1",
        }
    name = urlsplit(bench_url).path.lstrip("/")
    with psycopg.connect(urlunsplit(base._replace(path="/postgres")), autocommit=True) as conn:
        for suffix in DATABASE_SUFFIXES:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}{suffix}" WITH (FORCE)')


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A corpus of the benign fixture skills, in the manifest format bench/tier1.py reads."""
    root = tmp_path_factory.mktemp("corpus")
    with (root / "manifest.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "label", "path"])
        for folder in sorted(p for p in BENIGN.iterdir() if (p / "SKILL.md").exists()):
            writer.writerow([folder.name, "benign", str(folder)])
    return root


@pytest.mark.parametrize("script", sorted(RUNS))
def test_the_benchmark_runs_at_its_smallest_size(
    script: str, bench_environment: dict[str, str], corpus: Path
):
    arguments, keys = RUNS[script]
    command = [sys.executable, str(BENCH / script), *(a.format(corpus=corpus) for a in arguments)]
    log = ARTIFACTS / f"bench-{script.removesuffix('.py')}.log"
    ARTIFACTS.mkdir(exist_ok=True)
    run = subprocess.run(
        command, cwd=ROOT, env=bench_environment, capture_output=True, text=True, timeout=600
    )
    log.write_text(run.stdout + run.stderr)
    assert run.returncode == 0, f"{script} failed (log: {log}):\n{run.stderr[-4000:]}"
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    assert keys <= set(figures), f"{script}'s JSON line lacks {keys - set(figures)}"
