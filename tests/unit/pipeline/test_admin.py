"""The pipeline's admin pages, as operators read them: records, not forms, in words a person
reads, with short ids in lists, stale and stuck told apart, and dead letters replayable by
those allowed to."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from config import listing
from pipeline.models import DeadLetter, ProcessingAttempt, Submission, SubmissionStateEvent
from pipeline.services import steps
from pipeline.services.attempts import StepContext
from pipeline.states import State
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db

SUBMISSIONS = reverse("admin:pipeline_submission_changelist")
DEAD_LETTERS = reverse("admin:pipeline_deadletter_changelist")
SAVE_BUTTONS = ('name="_save"', 'name="_continue"', 'name="_addanother"')
PIPELINE_VIEW_PERMISSIONS = (
    "view_submission",
    "view_submissionstateevent",
    "view_scanresult",
    "view_processingattempt",
    "view_deadletter",
)


def submission_page(submission: Submission) -> str:
    return reverse("admin:pipeline_submission_change", args=[submission.pk])


def published(author) -> Submission:
    """A submission taken through every step in-process, with its events, scans, attempts."""
    submission = submission_in(State.RECEIVED, author)
    for task, step in (
        ("pipeline.scan", steps.run_intake),
        ("pipeline.scan", steps.run_scan),
        ("pipeline.judge", steps.run_judge),
        ("pipeline.publish", steps.run_publish),
    ):
        step(str(submission.pk), StepContext(task, worker="worker-1@host"))
    submission.refresh_from_db()
    return submission


def without_progress_for(submission: Submission, minutes: float) -> None:
    Submission.objects.filter(pk=submission.pk).update(
        state_changed_at=timezone.now() - timedelta(minutes=minutes)
    )


@pytest.fixture
def root(make_user, client):
    client.force_login(make_user("root", staff=True, is_superuser=True))
    return client


@pytest.fixture
def operator(make_user):
    """Staff who may view the pipeline's records and replay dead letters, and nothing else."""
    user = make_user("opal", staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="pipeline",
            codename__in=(*PIPELINE_VIEW_PERMISSIONS, "change_deadletter"),
        )
    )
    return user


# --- a record, not a form -------------------------------------------------------------------


def test_a_submissions_page_is_a_record_without_save_buttons(root, make_user):
    submission = published(make_user())

    response = root.get(submission_page(submission))

    assert response.status_code == 200
    assert "View submission" in response.text
    assert not any(button in response.text for button in SAVE_BUTTONS)
    assert root.post(submission_page(submission), {"state": "REJECTED"}).status_code == 403
    assert Submission.objects.get(pk=submission.pk).state == State.PUBLISHED


def test_every_pipeline_page_is_view_only_even_for_a_superuser(root, make_user):
    submission = published(make_user())
    letter = DeadLetter.objects.create(
        submission=submission, task_name="pipeline.judge", reason="retries_exhausted"
    )
    event, attempt = submission.events.first(), submission.attempts.first()
    assert event is not None and attempt is not None
    for model, pk in (
        ("submission", submission.pk),
        ("submissionstateevent", event.pk),
        ("processingattempt", attempt.pk),
        ("deadletter", letter.pk),
    ):
        page = root.get(reverse(f"admin:pipeline_{model}_change", args=[pk]))
        assert page.status_code == 200, model
        assert not any(button in page.text for button in SAVE_BUTTONS), model
        listing = root.get(reverse(f"admin:pipeline_{model}_changelist")).text
        assert reverse(f"admin:pipeline_{model}_add") not in listing, model


def test_staff_see_the_pipeline_with_view_permissions_and_not_without(operator, make_user, client):
    submission = published(make_user())
    client.force_login(operator)
    page = client.get(submission_page(submission))
    assert page.status_code == 200
    assert "Audit trail" in page.text and "Processing attempts" in page.text
    assert client.get(SUBMISSIONS).status_code == 200

    client.force_login(make_user("olga", staff=True))
    assert client.get(SUBMISSIONS).status_code == 403
    assert client.get(submission_page(submission)).status_code == 403


# --- readable records -------------------------------------------------------------------------


def test_the_audit_trail_reads_as_text_that_wraps_not_as_a_dict(root, make_user):
    submission = published(make_user())

    html = root.get(submission_page(submission)).text

    details = re.findall(r'<td class="field-details">(.*?)</td>', html, re.S)
    assert len(details) == 5
    assert not any("{" in cell or "[" in cell for cell in details)
    assert (
        '<span class="event-detail"><span class="event-detail-key">outcome</span> '
        f"PUBLISHED (verdict): Published as {submission.skill_owner}/{submission.skill_name}"
        "@1.0.0</span>"
    ) in html
    assert '<span class="event-detail-key">new version</span> yes</span>' in html
    assert "pipeline/admin.css" in html


def test_flags_read_as_words_and_attempts_show_their_stage(root, make_user):
    submission = published(make_user())

    html = root.get(submission_page(submission)).text

    assert "icon-no.svg" not in html and "icon-yes.svg" not in html
    late_cells = re.findall(r'<td class="field-late">\s*<p>(\w+)</p>', html)
    assert late_cells == ["no", "no"]
    stages = re.findall(r'<td class="field-stage">\s*<p>([^<]+)</p>', html)
    assert sorted(stages) == ["Auto Approved", "Received", "Tier1 Scanning", "Tier2 Scanning"]


def test_lists_show_short_ids_with_the_full_id_on_hover_and_compact_dates(root, make_user):
    submission = published(make_user())
    full = str(submission.pk)
    DeadLetter.objects.create(
        submission=submission, task_name="pipeline.judge", reason="retries_exhausted"
    )

    listing = root.get(SUBMISSIONS).text
    assert f'<span title="{full}">{full[:8]}</span>' in listing
    assert f">{full}<" not in listing
    assert re.search(
        r'<td class="field-created_at nowrap">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d</td>', listing
    )

    letters = root.get(DEAD_LETTERS).text
    assert f'title="{full}">{submission.skill_owner}/{submission.skill_name} · {full[:8]}</a>' in (
        letters
    )
    assert f">{full}<" not in letters

    assert full in root.get(submission_page(submission)).text


def test_a_submission_is_found_by_the_first_characters_of_its_id(root, make_user):
    wanted = submission_in(State.RECEIVED, make_user(), name="wanted")
    submission_in(State.RECEIVED, make_user("bob"), name="other")

    listing = root.get(SUBMISSIONS, {"q": str(wanted.pk)[:8]}).text

    assert "/wanted" in listing and "/other" not in listing


def test_the_site_is_named_skillgate(root):
    index = root.get(reverse("admin:index")).text
    assert "<title>Submissions, reviews and the registry | Skillgate administration</title>" in (
        index
    )
    assert ">Skillgate administration</a>" in index
    assert 'id="nav-sidebar"' not in root.get(SUBMISSIONS).text


# --- stale and stuck --------------------------------------------------------------------------


def test_the_progress_filters_tell_stale_from_stuck(root, make_user):
    author = make_user()
    stale = submission_in(State.TIER1_SCANNING, author, name="stale-one")
    stuck = submission_in(State.TIER2_SCANNING, author, name="stuck-one")
    submission_in(State.TIER2_SCANNING, author, name="moving-one")
    without_progress_for(stale, 4)
    without_progress_for(stuck, 6)

    listing = root.get(SUBMISSIONS).text
    assert "Stale (no progress for 3+ minutes)" in listing
    assert "Stuck (5+ minutes: recovery sweep acts)" in listing

    def names(progress: str) -> set[str]:
        page = root.get(SUBMISSIONS, {"progress": progress}).text
        return set(re.findall(r"alice/([\w-]+)", page))

    assert names("stale") == {"stale-one", "stuck-one"}
    assert names("stuck") == {"stuck-one"}

    stale_page = root.get(submission_page(stale)).text
    assert "Stale since" in stale_page
    assert "Your submission has been in Tier 1 scanning for over 3 minutes" in stale_page
    stuck_page = root.get(submission_page(stuck)).text
    assert "Stuck since" in stuck_page
    assert "the recovery sweep re-dispatches it (0 of 3 tries used)" in stuck_page


# --- dead letters -----------------------------------------------------------------------------


def replay_from_the_list(client, letter: DeadLetter):
    return client.post(
        DEAD_LETTERS,
        {"action": "replay_selected", "_selected_action": [letter.pk]},
        follow=True,
    )


def test_an_operator_replays_dead_letters_from_the_view_only_list(operator, make_user, client):
    live = submission_in(State.TIER1_SCANNING, make_user())
    letter = DeadLetter.objects.create(
        submission=live, task_name="pipeline.scan", reason="retries_exhausted"
    )
    client.force_login(operator)

    assert 'value="replay_selected"' in client.get(DEAD_LETTERS).text
    response = replay_from_the_list(client, letter)

    assert "re-sent from TIER1_SCANNING" in response.text
    letter.refresh_from_db()
    assert (letter.replay_count, letter.replayed_by) == (1, "opal")
    assert f'1× <span class="nowrap">{letter.replayed_at:%Y-%m-%d %H:%M:%S}</span>' in (
        client.get(DEAD_LETTERS).text
    )


def test_a_superuser_replays_too(root, make_user):
    live = submission_in(State.TIER1_SCANNING, make_user())
    letter = DeadLetter.objects.create(
        submission=live, task_name="pipeline.scan", reason="retries_exhausted"
    )
    assert "re-sent from TIER1_SCANNING" in replay_from_the_list(root, letter).text
    letter.refresh_from_db()
    assert letter.replay_count == 1 and letter.replayed_by == "root"


def test_viewing_dead_letters_does_not_allow_replaying_them(make_user, client):
    viewer = make_user("vic", staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_deadletter"))
    letter = DeadLetter.objects.create(
        submission=submission_in(State.TIER1_SCANNING, make_user()),
        task_name="pipeline.scan",
        reason="retries_exhausted",
    )
    client.force_login(viewer)

    assert 'value="replay_selected"' not in client.get(DEAD_LETTERS).text
    replay_from_the_list(client, letter)

    letter.refresh_from_db()
    assert letter.replay_count == 0


# --- searches and filters read indexes -----------------------------------------------------


def listed(client, changelist: str, **params: str) -> set[str]:
    """The skill names a changelist page shows."""
    page = client.get(changelist, params).text
    return set(re.findall(r"[\w-]+/([\w-]+)(?: · \w+)?</", page))


def test_a_search_finds_any_part_of_the_skill_repository_or_author_ignoring_case(root, make_user):
    submission_in(State.RECEIVED, make_user("alice"), name="weather-report")
    submission_in(
        State.RECEIVED, make_user("bob"), name="release-notes", repo_url="https://github.com/acme/x"
    )
    submission_in(State.RECEIVED, make_user("carol"), name="disk-tidy")

    assert listed(root, SUBMISSIONS, q="ATHER-REP") == {"weather-report"}
    assert listed(root, SUBMISSIONS, q="github.com/acme") == {"release-notes"}
    assert listed(root, SUBMISSIONS, q="carol") == {"disk-tidy"}
    assert listed(root, SUBMISSIONS, q="someorg notes") == {"release-notes"}
    assert listed(root, SUBMISSIONS, q="someorg tidy") == set()


def test_a_few_characters_of_an_id_are_not_an_id_search(root, make_user):
    wanted = submission_in(State.RECEIVED, make_user(), name="wanted")

    assert listed(root, SUBMISSIONS, q=str(wanted.pk)[:4]) == {"wanted"}
    assert listed(root, SUBMISSIONS, q=str(wanted.pk)[:3]) == set()


def test_audit_events_are_found_by_submission_id_or_actor(root, make_user):
    submission = published(make_user())
    other = published(make_user("bob"))
    events = reverse("admin:pipeline_submissionstateevent_changelist")

    by_id = root.get(events, {"q": str(submission.pk)[:8]}).text
    assert by_id.count(f"· {str(submission.pk)[:8]}</a>") == 5
    assert str(other.pk)[:8] not in by_id
    by_worker = SubmissionStateEvent.objects.filter(actor="worker").count()
    assert root.get(events, {"q": "worker"}).text.count('<td class="field-actor">') == by_worker


def test_submissions_are_filtered_by_the_day_they_came_instead_of_a_date_hierarchy(root, make_user):
    submission_in(State.RECEIVED, make_user(), name="today")
    older = submission_in(State.RECEIVED, make_user("bob"), name="last-week")
    Submission.objects.filter(pk=older.pk).update(created_at=timezone.now() - timedelta(days=8))
    today = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)

    page = root.get(SUBMISSIONS).text
    assert "By created at" in page and 'class="xfull"' not in page
    assert listed(
        root,
        SUBMISSIONS,
        created_at__gte=str(today),
        created_at__lt=str(today + timedelta(days=1)),
    ) == {"today"}


def test_a_long_list_says_its_count_is_an_estimate(root, make_user, monkeypatch):
    monkeypatch.setattr(listing, "EXACT_COUNT_UP_TO", 2)
    for index in range(4):
        submission_in(State.RECEIVED, make_user(f"author{index}"), name=f"skill-{index}")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE pipeline_submission")

    page = root.get(SUBMISSIONS).text

    assert re.search(r"about \d+ submissions", page)
    assert "total)" not in page


# --- lists cost what they show, not the history ---------------------------------------------

EVENTS = reverse("admin:pipeline_submissionstateevent_changelist")
ATTEMPTS = reverse("admin:pipeline_processingattempt_changelist")


def operator_lists(example: Submission) -> list[str]:
    """Every pipeline changelist, under each of its filters and with a search."""
    prefix = str(example.pk)[:8]
    today = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    today_filter = urlencode(
        {"created_at__gte": str(today), "created_at__lt": str(today + timedelta(days=1))}
    )
    return [
        SUBMISSIONS,
        f"{SUBMISSIONS}?progress=stale",
        f"{SUBMISSIONS}?progress=stuck",
        f"{SUBMISSIONS}?state__exact=PUBLISHED",
        f"{SUBMISSIONS}?source_kind__exact=inline",
        f"{SUBMISSIONS}?outcome_kind__exact=verdict",
        f"{SUBMISSIONS}?{today_filter}",
        f"{SUBMISSIONS}?q={prefix}",
        f"{SUBMISSIONS}?q=note",
        f"{SUBMISSIONS}?q=author",
        EVENTS,
        f"{EVENTS}?to_state__exact=PUBLISHED",
        f"{EVENTS}?actor_type__exact=worker",
        f"{EVENTS}?trigger__exact=test",
        f"{EVENTS}?q={prefix}",
        f"{EVENTS}?q=worker",
        ATTEMPTS,
        f"{ATTEMPTS}?status__exact=failed",
        f"{ATTEMPTS}?stage__exact=TIER1_SCANNING",
        f"{ATTEMPTS}?error_class__exact=provider_error",
        f"{ATTEMPTS}?task_name__exact=pipeline.judge",
        DEAD_LETTERS,
        f"{DEAD_LETTERS}?reason__exact=retries_exhausted",
        f"{DEAD_LETTERS}?status__exact=open",
        f"{DEAD_LETTERS}?q={prefix}",
    ]


def add_history(make_user, count: int, start: int) -> None:
    """``count`` published submissions with their events, scans and attempts, each with a
    failed attempt and a dead letter, and as many stuck submissions."""
    for index in range(start, start + count):
        submission = published(make_user(f"author{index}"))
        ProcessingAttempt.objects.create(
            submission=submission,
            stage=State.TIER2_SCANNING,
            task_name="pipeline.judge",
            status=ProcessingAttempt.Status.FAILED,
            error_class="provider_error",
            started_at=timezone.now(),
        )
        DeadLetter.objects.create(
            submission=submission, task_name="pipeline.judge", reason="retries_exhausted"
        )
        without_progress_for(submission_in(State.TIER1_SCANNING, submission.submitter), 6)


def queries_for(client, page: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(page).status_code == 200, page
    return len(captured.captured_queries)


def test_every_list_filter_and_search_reads_as_many_queries_for_twelve_rows_as_for_three(
    root, make_user
):
    add_history(make_user, 3, 0)
    pages = operator_lists(Submission.objects.earliest("created_at"))
    with_three = {page: queries_for(root, page) for page in pages}

    add_history(make_user, 9, 3)
    with_twelve = {page: queries_for(root, page) for page in pages}

    assert with_twelve == with_three
