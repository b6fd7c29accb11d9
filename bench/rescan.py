"""A re-scan campaign over a registry of published versions, while new submissions keep coming.

    .venv/bin/python bench/rescan.py [--versions 10000] [--rate 20] [--database-url …]

Seeds its own database with VERSIONS published versions of distinct bundles (realistic skills:
the benign fixtures with a line that makes each bundle unique), starts the workers as
`make run` does — a pipeline worker (2 processes, every queue but the re-scans') and the
re-scan worker (1 process at a lower CPU priority, the re-scan queue only) — then starts a
campaign over every version and, for as long as it runs, submits RATE new skills per second.

Prints the campaign's duration and rate and the new submissions' end-to-end latency, and as
its last line a JSON object. Targets: 10,000 versions in ≤ 10 minutes while 20 submissions per
second keep an end-to-end p95 ≤ 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._setup import (
    DEFAULT_BROKER_URL,
    database_url,
    prepare_broker,
    prepare_database,
    refuse_stale_workers,
    wait_for_workers,
)
from bench.pipeline import create_submissions, end_to_end_seconds, wait_published

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATABASE_URL = database_url("_rescan")
FIXTURES = ROOT / "tests" / "fixtures" / "grading" / "benign"
SKILLS = 500
BATCH = 1_000


def seed(versions: int) -> None:
    """``versions`` published versions of distinct bundles, inserted in bulk."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from pipeline.models import Submission
    from registry.bundles import Bundle
    from registry.models import BundleSnapshot, Skill, SkillVersion
    from skillformat.skillmd import parse_manifest

    author, _ = get_user_model().objects.get_or_create(username="bench-author")
    templates = [
        {str(p.relative_to(folder)): p.read_text() for p in folder.rglob("*") if p.is_file()}
        for folder in sorted(FIXTURES.iterdir())
        if folder.is_dir()
    ]
    now = timezone.now()
    with transaction.atomic():
        skills = Skill.objects.bulk_create(
            Skill(owner="bench", name=f"skill-{index}", origin=Skill.Origin.ACCOUNT,
                  owner_account=author, description="A benchmark skill.")
            for index in range(SKILLS)
        )  # fmt: skip
        for start in range(0, versions, BATCH):
            bundles, submissions, rows = [], [], []
            for index in range(start, min(start + BATCH, versions)):
                files = dict(templates[index % len(templates)])
                files["SKILL.md"] += f"\nEdition {index} of this skill.\n"
                bundle = Bundle.from_texts(files)
                manifest = parse_manifest(files["SKILL.md"])
                bundles.append(
                    BundleSnapshot(sha256=bundle.sha256, files=bundle.to_json(),
                                   manifest=manifest.to_json(), file_count=len(bundle.files),
                                   total_bytes=bundle.total_bytes)
                )  # fmt: skip
                submission = Submission(
                    skill_owner="bench", skill_name=skills[index % SKILLS].name,
                    source_kind="inline", submitter=author, bundle_id=bundle.sha256,
                    deadline_at=now, state="PUBLISHED", state_changed_at=now,
                    outcome_kind="verdict", outcome_code="PUBLISHED",
                )  # fmt: skip
                submissions.append(submission)
                rows.append(
                    SkillVersion(skill=skills[index % SKILLS], version=f"1.0.{index}",
                                 bundle_id=bundle.sha256, submission=submission,
                                 submitter=author, channel="automatic")
                )  # fmt: skip
            BundleSnapshot.objects.bulk_create(bundles, ignore_conflicts=True)
            Submission.objects.bulk_create(submissions)
            SkillVersion.objects.bulk_create(rows)


def start_fleet(env: dict[str, str]) -> list[subprocess.Popen]:
    """The workers of `make run`: the pipeline's, and the re-scans' at low priority."""
    run = uuid.uuid4().hex[:6]
    commands = [
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--concurrency", "2",
         "--loglevel", "WARNING", "-X", "registry.rescan", "-n", f"bench-pipeline-{run}@%h"],
        ["nice", "-n", "10", sys.executable, "-m", "celery", "-A", "config", "worker",
         "--concurrency", "1", "--loglevel", "WARNING", "-Q", "registry.rescan",
         "-n", f"bench-rescan-{run}@%h"],
    ]  # fmt: skip
    processes = []
    for index, command in enumerate(commands):
        log = open(ROOT / "var" / f"bench-rescan-worker-{index}.log", "wb")  # noqa: SIM115
        processes.append(
            subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        )
    return processes


def percentile(values: list[float], share: float) -> float:
    return values[min(len(values) - 1, round(share * len(values)) - 1)] if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=20.0, help="new submissions per second")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--broker-url", default=DEFAULT_BROKER_URL)
    args = parser.parse_args()
    os.environ["CELERY_BROKER_URL"] = args.broker_url
    os.environ["SKILLGATE_SUBMISSION_RATE"] = "1000000/hour"
    os.environ["SKILLGATE_ENV_FILE"] = ""
    prepare_database(args.database_url, fresh=True)
    prepare_broker(args.broker_url)

    from django.contrib.auth import get_user_model

    from registry import rescans
    from registry.models import RescanCampaign

    started = time.perf_counter()
    seed(args.versions)
    print(f"seeded {args.versions:,} published versions in {time.perf_counter() - started:.0f} s")
    from config.celery import app

    refuse_stale_workers(app)
    env = {**os.environ, "DATABASE_URL": args.database_url, "CELERY_BROKER_URL": args.broker_url}
    fleet = start_fleet(env)
    author, _ = get_user_model().objects.get_or_create(username=f"bench-{uuid.uuid4().hex[:6]}")
    try:
        wait_for_workers(app, len(fleet))
        campaign = rescans.start_campaign(rescans.RescanScope(), started_by="bench")
        began = time.perf_counter()
        submitted: list[str] = []
        stop = threading.Event()

        def submit_while_running() -> None:
            tag = uuid.uuid4().hex[:6]
            batch = 0
            while not stop.is_set():
                submitted.extend(
                    create_submissions(int(args.rate), args.rate, author, f"{tag}{batch}")
                )
                batch += 1

        load = threading.Thread(target=submit_while_running, daemon=True)
        load.start()
        while campaign.status != RescanCampaign.Status.FINISHED:
            time.sleep(2)
            campaign.refresh_from_db()
            if time.perf_counter() - began > 3600:
                raise TimeoutError(f"campaign still at {campaign.done}/{campaign.total}")
        assert campaign.finished_at is not None  # set with the FINISHED status
        elapsed = (campaign.finished_at - campaign.started_at).total_seconds()
        stop.set()
        load.join()
        wait_published(submitted, timeout=300)
        latencies = end_to_end_seconds(submitted)
    finally:
        for process in fleet:
            process.terminate()
        for process in fleet:
            process.wait(60)

    figures = {
        "versions": campaign.total,
        "rescanned": campaign.done,
        "failed": campaign.failed,
        "campaign_s": round(elapsed, 1),
        "versions_per_s": round(campaign.done / elapsed, 1),
        "submissions_during": len(submitted),
        "submission_rate": args.rate,
        "e2e_p50_s": round(statistics.median(latencies), 3),
        "e2e_p95_s": round(percentile(latencies, 0.95), 3),
        "targets": {"campaign_s": 600, "e2e_p95_s": 2.0},
    }
    print(
        f"campaign: {campaign.done:,} versions in {elapsed:.0f} s "
        f"({figures['versions_per_s']}/s, failed {campaign.failed}); "
        f"{len(submitted)} submissions meanwhile at {args.rate}/s: e2e p50 "
        f"{figures['e2e_p50_s']} s, p95 {figures['e2e_p95_s']} s"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
