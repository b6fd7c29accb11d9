"""Operator views at registry scale: every page must cost what it shows, not the history.

    .venv/bin/python bench/scale.py [--submissions 1000000] [--repeats 20] [--reseed]
                                    [--pages TEXT] [--database-url URL] [--broker-url URL]

Seeds its own PostgreSQL database (``skillgate_scale``) with a realistic history — submissions
in realistic proportions of outcomes, spread over 90 days with a busy last day, an audit event
per transition, processing attempts (failed ones with their error class for the submissions
that gave up), grading results, reviews with their finding categories, dead letters, published
versions of a few thousand skills with their version events — then serves it with gunicorn (2
workers, as in production) and times every operator-facing endpoint, and every admin changelist
under each of its filters and with its search (rare filter values included: a filter that
matches few rows is the worst case of an ordered list), as an operator's browser or Prometheus
would call them. Prints a table and, as its last line, a JSON object with p50/p95 per page.
``--pages`` times only the pages whose name contains the text.

Seeding is generic: a few template submissions are made through the ORM and the real services
(so every column gets its real default), then copied by SQL ``INSERT … SELECT`` with new ids and
timestamps, child rows (events, attempts, results, reviews, versions, dead letters) following
their submission. The seeded database is kept between runs; ``--reseed`` rebuilds it.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import itertools
import json
import os
import re
import statistics
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._setup import (
    DEFAULT_BROKER_URL,
    copy_rows,
    database_url,
    prepare_broker,
    prepare_database,
)

if TYPE_CHECKING:
    from registry.models import BundleSnapshot, GradingResult

DEFAULT_DATABASE_URL = database_url("_scale")
DAYS = 90
LAST_DAY_SHARE = 0.2
SKILLS = 5_000
# The Tier 1 finding category each kind of reviewed submission carries, for the queue's filter.
REVIEW_CATEGORIES = {
    "review_published": "network",
    "review_rejected": "credential_access",
    "review_open": "persistence",
    "review_assigned": "persistence",
}

# (kind, share of all submissions, the state path it took): realistic proportions.
KINDS: tuple[tuple[str, float, tuple[str, ...]], ...] = (
    (
        "auto_published",
        0.70,
        ("RECEIVED", "TIER1_SCANNING", "TIER2_SCANNING", "AUTO_APPROVED", "PUBLISHED"),
    ),
    ("tier1_failed", 0.10, ("RECEIVED", "TIER1_SCANNING", "TIER1_FAILED")),
    ("judge_rejected", 0.10, ("RECEIVED", "TIER1_SCANNING", "TIER2_SCANNING", "REJECTED")),
    (
        "review_published",
        0.05,
        (
            "RECEIVED",
            "TIER1_SCANNING",
            "TIER2_SCANNING",
            "NEEDS_REVIEW",
            "TIER3_REVIEW",
            "PUBLISHED",
        ),
    ),
    (
        "review_rejected",
        0.02,
        (
            "RECEIVED",
            "TIER1_SCANNING",
            "TIER2_SCANNING",
            "NEEDS_REVIEW",
            "TIER3_REVIEW",
            "REJECTED",
        ),
    ),
    ("review_open", 0.02, ("RECEIVED", "TIER1_SCANNING", "TIER2_SCANNING", "NEEDS_REVIEW")),
    (
        "review_assigned",
        0.005,
        ("RECEIVED", "TIER1_SCANNING", "TIER2_SCANNING", "NEEDS_REVIEW", "TIER3_REVIEW"),
    ),
    ("retries_exhausted", 0.0035, ("RECEIVED", "TIER1_SCANNING", "TIER2_SCANNING", "REJECTED")),
    ("in_flight", 0.001, ("RECEIVED", "TIER1_SCANNING", "TIER2_SCANNING")),
    ("stuck", 0.0005, ("RECEIVED", "TIER1_SCANNING")),
)


@dataclass(frozen=True)
class Page:
    name: str
    path: str  # may name values found in the seeded data: {submission_id}, {today}, …
    who: str  # "token" (API, operator token), "session" (admin), "none"


def _admin(name: str, path: str) -> Page:
    return Page(name, path, "session")


def _api(name: str, path: str) -> Page:
    return Page(name, path, "token")


ADMIN_SUBMISSIONS = "/admin/pipeline/submission/"
ADMIN_EVENTS = "/admin/pipeline/submissionstateevent/"
ADMIN_ATTEMPTS = "/admin/pipeline/processingattempt/"
ADMIN_DEAD_LETTERS = "/admin/pipeline/deadletter/"
ADMIN_REVIEWS = "/admin/reviews/review/"
ADMIN_SKILLS = "/admin/registry/skill/"
ADMIN_VERSIONS = "/admin/registry/skillversion/"

# Every operator-facing endpoint, and every admin changelist with each of its filters and its
# search; rare filter values (few or no rows) are the worst case for an ordered list.
PAGES: tuple[Page, ...] = (
    Page("/metrics", "/metrics", "none"),
    _api("api queue status", "/api/v1/admin/queue/status"),
    _api("api queue metrics", "/api/v1/admin/queue/metrics"),
    _api("api submissions", "/api/v1/submissions?limit=50"),
    _api("api submissions page 2", "{api_submissions_page_2}"),
    _api("api submission", "/api/v1/submissions/{submission_id}"),
    _api("api submission events", "/api/v1/submissions/{submission_id}/events"),
    Page("api skills", "/api/v1/skills?limit=50", "none"),
    Page("api skill", "/api/v1/skills/{skill_owner}/{skill_name}", "none"),
    _api("api reviews", "/api/v1/reviews?limit=50"),
    _api("api reviews all", "/api/v1/reviews?limit=50&state=all"),
    _api("api reviews search", "/api/v1/reviews?limit=50&search=skill-4242"),
    _api("api dead letters", "/api/v1/admin/dead-letters?limit=50"),
    _admin("admin submissions", ADMIN_SUBMISSIONS),
    _admin("admin submissions stale", f"{ADMIN_SUBMISSIONS}?progress=stale"),
    _admin("admin submissions stuck", f"{ADMIN_SUBMISSIONS}?progress=stuck"),
    _admin("admin submissions state", f"{ADMIN_SUBMISSIONS}?state__exact=NEEDS_REVIEW"),
    _admin("admin submissions state rare", f"{ADMIN_SUBMISSIONS}?state__exact=VENDOR_APPROVED"),
    _admin("admin submissions state big", f"{ADMIN_SUBMISSIONS}?state__exact=PUBLISHED"),
    _admin("admin submissions source", f"{ADMIN_SUBMISSIONS}?source_kind__exact=git"),
    _admin("admin submissions outcome", f"{ADMIN_SUBMISSIONS}?outcome_kind__exact=error"),
    _admin("admin submissions today", f"{ADMIN_SUBMISSIONS}?{{created_today}}"),
    _admin("admin submissions search id", f"{ADMIN_SUBMISSIONS}?q={{submission_prefix}}"),
    _admin("admin submissions search name", f"{ADMIN_SUBMISSIONS}?q=skill-4242"),
    _admin("admin submissions search owner", f"{ADMIN_SUBMISSIONS}?q=scale-author"),
    _admin("admin submissions search no match", f"{ADMIN_SUBMISSIONS}?q=scale-reviewer"),
    _admin("admin submissions search repo", f"{ADMIN_SUBMISSIONS}?q=github.com%2Fnobody"),
    _admin("admin submission page", f"{ADMIN_SUBMISSIONS}{{submission_id}}/change/"),
    _admin("admin events", ADMIN_EVENTS),
    _admin("admin events to state", f"{ADMIN_EVENTS}?to_state__exact=TIER1_FAILED"),
    _admin("admin events actor type", f"{ADMIN_EVENTS}?actor_type__exact=admin"),
    _admin("admin events trigger", f"{ADMIN_EVENTS}?trigger__exact=reviewer-approved"),
    _admin("admin events search id", f"{ADMIN_EVENTS}?q={{submission_prefix}}"),
    _admin("admin events search actor", f"{ADMIN_EVENTS}?q=scale-reviewer"),
    _admin("admin attempts", ADMIN_ATTEMPTS),
    _admin("admin attempts status", f"{ADMIN_ATTEMPTS}?status__exact=failed"),
    _admin("admin attempts stage", f"{ADMIN_ATTEMPTS}?stage__exact=RECEIVED"),
    _admin("admin attempts error class", f"{ADMIN_ATTEMPTS}?error_class__exact=provider_error"),
    _admin("admin attempts task", f"{ADMIN_ATTEMPTS}?task_name__exact=pipeline.judge"),
    _admin("admin dead letters", ADMIN_DEAD_LETTERS),
    _admin("admin dead letters reason", f"{ADMIN_DEAD_LETTERS}?reason__exact=crash_loop"),
    _admin("admin dead letters pending", f"{ADMIN_DEAD_LETTERS}?replayed_at__isempty=1"),
    _admin("admin dead letters search", f"{ADMIN_DEAD_LETTERS}?q={{submission_prefix}}"),
    _admin("admin review queue", ADMIN_REVIEWS),
    _admin("admin review queue all", f"{ADMIN_REVIEWS}?state=all"),
    _admin("admin review queue approved", f"{ADMIN_REVIEWS}?state=PUBLISHED"),
    _admin("admin review queue unassigned", f"{ADMIN_REVIEWS}?assigned=nobody"),
    _admin("admin review queue overdue", f"{ADMIN_REVIEWS}?overdue=yes"),
    _admin("admin review queue escalated", f"{ADMIN_REVIEWS}?escalated=yes"),
    _admin("admin review queue category", f"{ADMIN_REVIEWS}?category=persistence"),
    _admin("admin review queue search", f"{ADMIN_REVIEWS}?q=skill-4242"),
    _admin("admin review queue counts", f"{ADMIN_REVIEWS}?_facets=True"),
    _admin("admin review page", f"{ADMIN_REVIEWS}{{review_id}}/change/"),
    _admin("admin skills", ADMIN_SKILLS),
    _admin("admin skills search", f"{ADMIN_SKILLS}?q=skill-42"),
    _admin("admin skill page", f"{ADMIN_SKILLS}{{skill_id}}/change/"),
    _admin("admin versions", ADMIN_VERSIONS),
    _admin("admin versions status", f"{ADMIN_VERSIONS}?status__exact=quarantined"),
    _admin("admin versions channel", f"{ADMIN_VERSIONS}?channel__exact=review"),
    _admin("admin versions search", f"{ADMIN_VERSIONS}?q=skill-42"),
    _admin("admin versions search number", f"{ADMIN_VERSIONS}?q=1.0.42"),
    _admin("admin version page", f"{ADMIN_VERSIONS}{{version_id}}/change/"),
    Page("api advisories", "/api/v1/advisories?limit=50", "none"),
)


def page_named(name: str) -> Page:
    return next(page for page in PAGES if page.name == name)


# --- seeding ---------------------------------------------------------------------------


def make_templates() -> dict[str, str]:
    """One submission per kind, with every child row, made through the real services."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from pipeline.models import DeadLetter, ProcessingAttempt, ScanResult, Submission
    from pipeline.outcomes import Outcome, OutcomeCode
    from pipeline.services.publishing import publish
    from pipeline.states import State
    from pipeline.transitions import Actor, Change, record_received, transition
    from registry.bundles import Bundle
    from registry.models import SkillVersion
    from registry.services import store_snapshot
    from reviews.models import Review, ReviewCategory
    from skillformat.skillmd import parse_manifest

    author, _ = get_user_model().objects.get_or_create(username="scale-author")
    reviewer, _ = get_user_model().objects.get_or_create(username="scale-reviewer")
    templates = {}
    for kind, _share, path in KINDS:
        name = f"template-{kind.replace('_', '-')}"
        skill_md = f"---\nname: {name}\ndescription: A {kind} skill.\n---\nDo it.\n"
        bundle = store_snapshot(Bundle.from_texts({"SKILL.md": skill_md}), parse_manifest(skill_md))
        graded = grading_results(bundle, kind)
        now = timezone.now()
        submission = Submission.objects.create(
            skill_owner="scale-author",
            skill_name=name,
            source_kind="inline",
            submitter=author,
            bundle=bundle,
            deadline_at=now,
            state="RECEIVED",
            state_changed_at=now,
        )
        record_received(submission, "api-submission", Actor.system())
        for source, target in itertools.pairwise(path):
            if target == "PUBLISHED":
                submission.refresh_from_db()
                trigger = "reviewer-approved" if source == "TIER3_REVIEW" else "publish-complete"
                publish_submission(publish, submission, trigger, reviewer)
                continue
            outcome = None
            if target in {"REJECTED", "TIER1_FAILED"}:
                code = {
                    "TIER1_FAILED": OutcomeCode.TIER1_FAILED,
                    "REJECTED": OutcomeCode.SCORE_TOO_LOW,
                }[target]
                if kind == "retries_exhausted":
                    outcome = Outcome.error(OutcomeCode.RETRIES_EXHAUSTED, "gave up")
                else:
                    outcome = Outcome.verdict(code, "not safe")
            if kind == "retries_exhausted" and target == "REJECTED":
                actor = Actor.system()
            elif source in {"NEEDS_REVIEW", "TIER3_REVIEW"}:
                actor = Actor.admin(reviewer.username)
            else:
                actor = Actor.worker()
            transition(
                submission.pk,
                Change(
                    State(source), State(target), f"to-{target.lower()}", actor, outcome=outcome
                ),
            )
        for tier, step in ((1, "pipeline.scan"), (2, "pipeline.judge"), (3, "pipeline.publish")):
            if tier > len(path) - 2:
                break
            ProcessingAttempt.objects.create(
                submission=submission,
                stage=path[tier],
                task_name=step,
                task_id=str(uuid.uuid4()),
                worker="celery@bench",
                status="succeeded",
                started_at=now,
                finished_at=now,
            )
            if tier < 3:
                ScanResult.objects.create(submission=submission, tier=tier, result=graded[tier])
        if kind == "retries_exhausted":
            for number in (1, 2, 3):
                ProcessingAttempt.objects.create(
                    submission=submission,
                    stage="TIER2_SCANNING",
                    task_name="pipeline.judge",
                    task_id=str(uuid.uuid4()),
                    worker="celery@bench",
                    attempt=number,
                    status="failed",
                    error_class="provider_error",
                    error_message="the judge endpoint answered 503",
                    started_at=now,
                    finished_at=now,
                )
        if "NEEDS_REVIEW" in path:
            decided = path[-1] in {"PUBLISHED", "REJECTED"}
            review = Review.objects.create(
                submission=submission,
                reasons=["score 72 in the review band 60–79"],
                score=72,
                opened_at=now,
                due_at=now,
                assignee=reviewer if "TIER3_REVIEW" in path else None,
                decision=("approved" if path[-1] == "PUBLISHED" else "rejected") if decided else "",
                decided_by=reviewer if decided else None,
                decided_at=now if decided else None,
            )
            ReviewCategory.objects.create(
                review=review,
                category=REVIEW_CATEGORIES[kind],
                findings=2,
                worst_severity="high",
            )
        if kind == "retries_exhausted":
            DeadLetter.objects.create(
                submission=submission,
                task_name="pipeline.judge",
                task_id=str(uuid.uuid4()),
                stage="TIER2_SCANNING",
                reason="retries_exhausted",
                error_class="provider_error",
                error_message="the judge endpoint answered 503",
                payload={"args": [str(submission.pk)]},
            )
        templates[kind] = str(submission.pk)
        assert SkillVersion.objects.filter(submission=submission).exists() == (
            path[-1] == "PUBLISHED"
        )
    return templates


def grading_results(bundle: BundleSnapshot, kind: str) -> dict[int, GradingResult]:
    """The Tier 1 and Tier 2 results of the template's bundle, made by the real graders and
    recorded by the real service; the decision is the one the kind of submission took."""
    from grading import tier1
    from grading.judges import get_judge
    from grading.records import Thresholds, Tier2Record
    from grading.types import Decision, DecisionOutcome
    from registry import results

    files = bundle.as_bundle().scan_input()
    report = tier1.scan(files)
    judgement = get_judge().judge(files, report)
    outcome: DecisionOutcome = (
        "reject"
        if kind in {"judge_rejected", "retries_exhausted"}
        else "review"
        if kind.startswith("review")
        else "auto_approve"
    )
    record = Tier2Record(judgement, Decision(outcome, ("bench",)), Thresholds(80, 60))
    return {
        1: results.record_tier1(bundle.sha256, report),
        2: results.record_tier2(bundle.sha256, report.catalogue_version, record),
    }


def publish_submission(publish, submission, trigger: str, reviewer) -> None:
    """Publish through the real service, whatever its signature is this week."""
    import inspect

    from pipeline.transitions import Actor
    from registry.models import SkillVersion

    channel = (
        SkillVersion.Channel.REVIEW
        if trigger == "reviewer-approved"
        else SkillVersion.Channel.AUTOMATIC
    )
    actor = Actor.admin(reviewer.username) if trigger == "reviewer-approved" else Actor.system()
    kwargs = {"trigger": trigger} if "trigger" in inspect.signature(publish).parameters else {}
    publish(submission, channel, actor, **kwargs)


def seed(total: int) -> None:
    from django.db import connection, transaction

    from pipeline.rollups import fold_pending

    print(f"seeding {total:,} submissions …", flush=True)
    started = time.monotonic()
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE pipeline_submissionstateevent DISABLE TRIGGER USER")
        cursor.execute(
            "TRUNCATE pipeline_submission, pipeline_submissionstateevent, pipeline_scanresult, "
            "pipeline_processingattempt, pipeline_deadletter, reviews_review, "
            "registry_skillversion, registry_skill CASCADE"
        )
        cursor.execute("ALTER TABLE pipeline_submissionstateevent ENABLE TRIGGER USER")
    templates = make_templates()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL synchronous_commit TO OFF")
        copy_rows(
            cursor,
            "registry_skill",
            "registry_skill t, generate_series(1, %s) g WHERE t.name = 'template-auto-published'",
            {"id": None, "name": "'skill-' || g"},
            [SKILLS],
        )
        cursor.execute(
            "CREATE TEMP TABLE bench_skill AS SELECT row_number() OVER (ORDER BY id) - 1 AS n, id "
            "FROM registry_skill WHERE name LIKE 'skill-%%'"
        )
        for index, (kind, share, path) in enumerate(KINDS):
            count = max(1, round(total * share))
            _copy_kind(cursor, index, kind, count, templates[kind], path)
            print(f"  {kind:<18} {count:>9,}  ({time.monotonic() - started:.0f} s)", flush=True)
    folding = time.monotonic()
    print(f"  figures: {fold_pending():,} noted changes folded "
          f"({time.monotonic() - folding:.0f} s)", flush=True)  # fmt: skip
    with connection.cursor() as cursor:
        for table in (
            "pipeline_submission",
            "pipeline_submissionstateevent",
            "pipeline_scanresult",
            "pipeline_processingattempt",
            "pipeline_figurechange",
            "pipeline_deadletter",
            "reviews_review",
            "reviews_reviewcategory",
            "registry_skill",
            "registry_skillversion",
            "registry_versionevent",
        ):
            cursor.execute(f"VACUUM ANALYZE {table}")
    print(f"seeded in {time.monotonic() - started:.0f} s", flush=True)


def _copy_kind(
    cursor, index: int, kind: str, count: int, template: str, path: tuple[str, ...]
) -> None:
    """``count`` copies of the template submission and its children, ids and times new."""
    recent = kind in {"in_flight"}
    age = (
        "interval '2 minutes' * random()"
        if recent
        else "interval '10 minutes' + interval '20 minutes' * random()"
        if kind == "stuck"
        else f"CASE WHEN random() < {LAST_DAY_SHARE} THEN interval '1 day' * random() "
        f"ELSE interval '1 day' * {DAYS} * random() END"
    )
    cursor.execute("DROP TABLE IF EXISTS bench_new")
    cursor.execute(
        f"CREATE TEMP TABLE bench_new AS SELECT g, gen_random_uuid() AS id, now() - ({age}) AS at "
        f"FROM generate_series(1, %s) g",
        [count],
    )
    template_time = "(SELECT created_at FROM pipeline_submission WHERE id = %s)"
    copy_rows(
        cursor,
        "pipeline_submission",
        "pipeline_submission t, bench_new n WHERE t.id = %s",
        {
            "id": "n.id",
            "skill_name": "'skill-' || mod(n.g, 10000)",
            "created_at": "n.at",
            "updated_at": "n.at",
            "state_changed_at": f"n.at + interval '{len(path)} seconds'",
            "deadline_at": "n.at + interval '30 minutes'",
            "dispatched_at": "n.at",
            "published_version_id": "NULL",
        },
        [template],
    )
    children = {  # table: (the column naming the submission, the time columns)
        "pipeline_submissionstateevent": ("submission_id", ("created_at",)),
        "pipeline_processingattempt": ("submission_id", ("started_at", "finished_at")),
        "pipeline_scanresult": ("submission_id", ("created_at",)),
        "pipeline_deadletter": ("submission_id", ("created_at",)),
        "reviews_review": ("submission_id", ("opened_at", "due_at", "assigned_at", "decided_at")),
        "reviews_reviewcategory": ("review_id", ()),
    }
    for table, (key, times) in children.items():
        overrides: dict[str, str | None] = {"id": None, key: "n.id"}
        if table == "pipeline_processingattempt":
            # Each copy is its own step message, as in a real history (a retry repeats its
            # message's task id, nothing else does).
            overrides["task_id"] = "left(t.task_id, 40) || '-' || n.g"
        for column in times:
            overrides[column] = (
                f"CASE WHEN t.{column} IS NULL THEN NULL "
                f"ELSE n.at + (t.{column} - {template_time}) END"
            )
        params = [template] * len(times) + [template]
        copy_rows(cursor, table, f"{table} t, bench_new n WHERE t.{key} = %s", overrides, params)
    if path[-1] == "PUBLISHED":
        copy_rows(
            cursor,
            "registry_skillversion",
            "registry_skillversion t, bench_new n, bench_skill s "
            "WHERE t.submission_id = %s AND s.n = mod(n.g, " + str(SKILLS) + ")",
            {
                "id": None,
                "submission_id": "n.id",
                "skill_id": "s.id",
                "version": f"'1.{index}.' || n.g",
                "published_at": "n.at + interval '5 seconds'",
            },
            [template],
        )
        copy_rows(
            cursor,
            "registry_versionevent",
            "registry_versionevent t, registry_skillversion v, bench_new n "
            "WHERE t.version_id = (SELECT id FROM registry_skillversion WHERE submission_id = %s) "
            "AND v.submission_id = n.id",
            {"id": None, "version_id": "v.id", "created_at": "v.published_at"},
            [template],
        )


def seeded_count() -> int:
    from pipeline.models import Submission

    return Submission.objects.count()


def seeded_examples() -> dict[str, str]:
    """Values the page paths name: a published submission, an open review, a skill, today."""
    from datetime import timedelta

    from django.utils import timezone

    from pipeline.models import Submission
    from registry.models import Skill, SkillVersion
    from reviews.models import Review

    submission_id = str(
        Submission.objects.filter(state="PUBLISHED").values_list("id", flat=True).first()
    )
    # A skill with a version (at a small size most of the copied skills have none).
    skill = (
        Skill.objects.filter(name__startswith="skill-", versions__isnull=False)
        .order_by("name")
        .first()
    )
    assert skill is not None, "the seeded history has no published version"
    today = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    return {
        "submission_id": submission_id,
        "submission_prefix": submission_id[:8],
        "review_id": str(
            Review.objects.filter(decided_at__isnull=True).values_list("pk", flat=True).first()
        ),
        "skill_id": str(skill.pk),
        "version_id": str(SkillVersion.objects.filter(skill=skill).values_list("pk", flat=True)[0]),
        "skill_owner": skill.owner,
        "skill_name": skill.name,
        "created_today": urllib.parse.urlencode(
            {"created_at__gte": str(today), "created_at__lt": str(today + timedelta(days=1))}
        ),
    }


# --- timing ----------------------------------------------------------------------------


class Session:
    """An operator's HTTP session: an API token for the API, a logged-in admin for the rest."""

    def __init__(self, base_url: str, username: str, password: str, token: str) -> None:
        self.base_url = base_url
        self.token = token
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        login = self.opener.open(f"{base_url}/admin/login/").read().decode()
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login).group(1)  # type: ignore[union-attr]
        form = urllib.parse.urlencode(
            {
                "username": username,
                "password": password,
                "csrfmiddlewaretoken": csrf,
                "next": "/admin/",
            }
        ).encode()
        request = urllib.request.Request(
            f"{base_url}/admin/login/", data=form, headers={"Referer": f"{base_url}/admin/login/"}
        )
        assert "Log out" in self.opener.open(request).read().decode(), "admin login failed"

    def next_page(self, first: Page) -> str:
        """The path of the page after ``first`` (an API list), as its ``next`` link gives it."""
        request = urllib.request.Request(
            f"{self.base_url}{first.path}", headers={"Authorization": f"Token {self.token}"}
        )
        with urllib.request.build_opener().open(request, timeout=120) as response:
            following = json.loads(response.read())["next"]
        parts = urllib.parse.urlsplit(following)
        return f"{parts.path}?{parts.query}"

    def get(self, page: Page, path: str) -> float:
        headers = {"Authorization": f"Token {self.token}"} if page.who == "token" else {}
        opener = self.opener if page.who == "session" else urllib.request.build_opener()
        started = time.perf_counter()
        with opener.open(
            urllib.request.Request(f"{self.base_url}{path}", headers=headers), timeout=120
        ) as response:
            response.read()
            assert response.status == 200, (path, response.status)
        return (time.perf_counter() - started) * 1000


def time_pages(
    session: Session, pages: list[Page], repeats: int, substitutions: dict[str, str]
) -> dict[str, dict[str, float]]:
    """p50/p95 per page; a page that answers an error is reported as such, not timed."""
    figures = {}
    for page in pages:
        path = page.path.format(**substitutions)
        try:
            for _ in range(2):
                session.get(page, path)
        except urllib.error.HTTPError as error:
            print(f"  {page.name:<32} HTTP {error.code}", flush=True)
            continue
        samples = sorted(session.get(page, path) for _ in range(repeats))
        figures[page.name] = {
            "p50_ms": round(statistics.median(samples), 1),
            "p95_ms": round(samples[max(0, round(0.95 * len(samples)) - 1)], 1),
        }
        p50, p95 = figures[page.name]["p50_ms"], figures[page.name]["p95_ms"]
        print(
            f"  {page.name:<32} p50 {p50:>8.1f} ms   p95 {p95:>8.1f} ms",
            flush=True,
        )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--reseed", action="store_true", help="rebuild the seeded history")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--broker-url", default=DEFAULT_BROKER_URL)
    parser.add_argument(
        "--pages", default="", help="time only the pages whose name contains this text"
    )
    args = parser.parse_args()
    os.environ["CELERY_BROKER_URL"] = args.broker_url
    os.environ["SKILLGATE_ENV_FILE"] = ""
    prepare_database(args.database_url)
    prepare_broker(args.broker_url)

    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from tests.support.stack import WebServer, stack_environment

    expected = sum(max(1, round(args.submissions * share)) for _, share, _ in KINDS) + len(KINDS)
    if args.reseed or seeded_count() != expected:
        seed(args.submissions)
    password = uuid.uuid4().hex
    operator, _ = get_user_model().objects.get_or_create(username="scale-operator")
    operator.is_staff = operator.is_superuser = True
    operator.set_password(password)
    operator.save()
    token, _ = Token.objects.get_or_create(user=operator)
    substitutions = seeded_examples()

    server = WebServer(
        stack_environment(DATABASE_URL=args.database_url, CELERY_BROKER_URL=args.broker_url)
    )
    server.start()
    try:
        session = Session(server.url, operator.username, password, token.key)
        print(f"{seeded_count():,} submissions; {args.repeats} requests per page after 2 warm-ups:")
        substitutions["api_submissions_page_2"] = session.next_page(page_named("api submissions"))
        pages = [page for page in PAGES if args.pages in page.name]
        figures = time_pages(session, pages, args.repeats, substitutions)
    finally:
        server.stop()
    print(json.dumps({"submissions": seeded_count(), "repeats": args.repeats, "pages": figures}))


if __name__ == "__main__":
    main()
