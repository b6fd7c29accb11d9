"""A dead letter's life: open until it is replayed, dismissed (with a reason) or resolved (its
submission has ended); only open ones count; every action says what it did."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.management import CommandError, call_command
from django.urls import reverse

from pipeline.models import DeadLetter
from pipeline.monitoring import open_dead_letters, queue_counts
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.roles import OPERATORS_GROUP
from pipeline.services import dead_letters, failures
from pipeline.services.failures import GiveUp
from pipeline.states import State
from pipeline.transitions import Actor, Change, transition
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db

DEAD_LETTERS = reverse("admin:pipeline_deadletter_changelist")


def letter_for(submission, **extra) -> DeadLetter:
    return DeadLetter.objects.create(
        submission=submission, task_name="pipeline.judge", reason="retries_exhausted", **extra
    )


def test_a_dead_letter_whose_submission_ended_is_resolved_not_replayed(make_user):
    ended = submission_in(State.REJECTED, make_user())
    letter = letter_for(ended)
    refused = dead_letters.replay(letter, "opal")
    assert not refused.done
    assert "has ended (REJECTED); nothing left to run: resolve" in refused.message
    assert dead_letters.resolve(letter, "opal").done
    letter.refresh_from_db()
    assert (letter.status, letter.closed_by, letter.close_reason) == (
        "resolved",
        "opal",
        "the submission ended (REJECTED)",
    )
    assert open_dead_letters() == 0
    assert queue_counts(letter.created_at)["dead_letters_pending"] == 0


def test_a_live_submissions_dead_letter_cannot_be_resolved_but_can_be_dismissed(make_user):
    letter = letter_for(submission_in(State.TIER2_SCANNING, make_user()))
    assert "has not ended (it is TIER2_SCANNING)" in dead_letters.resolve(letter, "opal").message
    assert not dead_letters.dismiss(letter, "opal", "   ").done, "a reason is required"
    assert dead_letters.dismiss(letter, "opal", "known provider outage").done
    again = dead_letters.dismiss(letter, "root", "twice")
    assert (again.done, again.message) == (False, "already dismissed (known provider outage)")


def test_replaying_closes_the_dead_letter(make_user):
    letter = letter_for(submission_in(State.TIER2_SCANNING, make_user()))
    assert dead_letters.replay(letter, "opal").done
    letter.refresh_from_db()
    assert (letter.status, letter.replay_count) == ("replayed", 1)
    assert not dead_letters.replay(letter, "opal").done


def test_a_dead_letter_whose_submission_ended_without_it_is_resolved_by_the_system(make_user):
    user = make_user()
    finished_elsewhere = submission_in(State.AUTO_APPROVED, user, name="elsewhere")
    letter = letter_for(finished_elsewhere)
    transition(
        finished_elsewhere.pk,
        Change(
            State.AUTO_APPROVED,
            State.REJECTED,
            "stuck-exhausted",
            Actor.system(),
            outcome=Outcome.error(OutcomeCode.STUCK_EXHAUSTED, "stalled"),
        ),
    )
    given_up = submission_in(State.TIER2_SCANNING, user, name="given-up")
    record = failures.record(
        GiveUp(
            key="task:3",
            task_name="pipeline.judge",
            task_id="task",
            submission_id=str(given_up.pk),
            reason="retries_exhausted",
            error_class="http_5xx",
            error_message="503",
            attempts=4,
            failures=4,
        )
    )
    poison = DeadLetter.objects.create(
        submission=finished_elsewhere, task_name="pipeline.retired", reason="poison"
    )
    assert dead_letters.resolve_ended_elsewhere() == 1
    poison.refresh_from_db()
    assert poison.status == "open", "a poison message is about the message, not the submission"
    letter.refresh_from_db()
    record.refresh_from_db()
    assert letter.status == "resolved" and "without it" in letter.close_reason
    assert record.status == "open", "its own give-up ended it: an operator closes it"


def test_a_give_up_is_recorded_once_per_message(make_user):
    submission = submission_in(State.TIER2_SCANNING, make_user())
    give_up = GiveUp(
        key="same:3",
        task_name="pipeline.judge",
        task_id="same",
        submission_id=str(submission.pk),
        reason="retries_exhausted",
        error_class="judge_timeout",
        error_message="slow",
        attempts=4,
        failures=4,
    )
    first, second = failures.record(give_up), failures.record(give_up)
    assert first.pk == second.pk
    assert submission.events.filter(to_state=State.REJECTED).count() == 1
    submission.refresh_from_db()
    assert "judge failed 4 time(s) (the judge did not answer in time)" in (
        submission.outcome_message
    )


def test_the_replay_command_says_what_it_did_and_fails_when_nothing_could_be_done(
    make_user, capsys
):
    ended = letter_for(submission_in(State.REJECTED, make_user()))
    with pytest.raises(CommandError, match="replayed 0 of 1: nothing could be done"):
        call_command("replay_dead_letters", "--all")
    assert f"#{ended.pk}: submission" in capsys.readouterr().out

    call_command("replay_dead_letters", "--all", "--resolve-ended")
    out = capsys.readouterr().out
    assert "resolved: submission" in out and "replayed 0 of 1, resolved 1" in out
    ended.refresh_from_db()
    assert ended.status == "resolved"


@pytest.fixture
def operator_client(make_user, client):
    user = make_user("opal", staff=True)
    user.groups.add(Group.objects.get(name=OPERATORS_GROUP))
    user.user_permissions.add(Permission.objects.get(codename="change_deadletter"))
    client.force_login(user)
    return client


def test_an_operator_dismisses_dead_letters_with_a_reason_from_the_admin(
    operator_client, make_user
):
    letter = letter_for(submission_in(State.TIER2_SCANNING, make_user()))
    chosen = {"action": "dismiss_selected", "_selected_action": [letter.pk]}
    form = operator_client.post(DEAD_LETTERS, chosen)
    assert form.status_code == 200 and "Say why" in form.text

    done = operator_client.post(
        DEAD_LETTERS, {**chosen, "apply": "1", "reason": "duplicate of #12"}, follow=True
    )
    assert "Dismissed 1 of 1 dead letter(s)" in done.text
    letter.refresh_from_db()
    assert (letter.status, letter.close_reason, letter.closed_by) == (
        "dismissed",
        "duplicate of #12",
        "opal",
    )

    nothing = operator_client.post(
        DEAD_LETTERS, {**chosen, "apply": "1", "reason": "again"}, follow=True
    )
    assert "Dismissed 0 of 1 dead letter(s)" in nothing.text
    assert "already dismissed" in nothing.text


def test_the_api_dismisses_and_resolves_and_answers_409_when_it_cannot(make_user, client_for):
    operator = make_user("operator", staff=True)
    operator.groups.add(Group.objects.get(name=OPERATORS_GROUP))
    api = client_for(operator)
    ended = letter_for(submission_in(State.REJECTED, make_user()))
    live = letter_for(submission_in(State.TIER2_SCANNING, make_user("bob")))
    url = "/api/v1/admin/dead-letters"

    assert api.post(f"{url}/{live.pk}/dismiss", {}, format="json").status_code == 400
    assert api.post(f"{url}/{live.pk}/resolve").status_code == 409
    resolved = api.post(f"{url}/{ended.pk}/resolve")
    assert (resolved.status_code, resolved.json()["resolved"]) == (200, True)
    dismissed = api.post(f"{url}/{live.pk}/dismiss", {"reason": "tested"}, format="json")
    assert (dismissed.status_code, dismissed.json()["dismissed"]) == (200, True)
    assert [row["status"] for row in api.get(f"{url}?status=open").json()["results"]] == []
