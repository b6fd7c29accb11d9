"""Issue 21 item 3: who publishes a name is checked again where the version is stored, under the
skill's lock (a submission can wait days for a reviewer); usernames are unique ignoring case;
owner names that look like a held one are refused."""

from __future__ import annotations

import json

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import IntegrityError, connection, transaction
from django.test import Client

from pipeline.services import steps
from pipeline.services.attempts import StepContext
from pipeline.services.publishing import publish
from pipeline.states import ActorType, State
from pipeline.transitions import Actor
from registry.models import Namespace, SkillVersion
from registry.namespaces import NameTaken
from tests.support.skills import skill_md
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db
User = get_user_model()


def submit_inline(client, name: str = "toctou-x"):
    return client.post(
        "/api/v1/submissions",
        data=json.dumps({"files": {"SKILL.md": skill_md(name)}}),
        content_type="application/json",
    )


def test_usernames_differing_only_in_case_cannot_both_exist(make_user):
    make_user("race0")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("Race0", password="pw-for-tests")


def test_the_admin_refuses_an_account_named_like_another_ignoring_case(make_user):
    make_user("race0")
    admin = Client()
    admin.force_login(make_user("root", staff=True, is_superuser=True))
    response = admin.post(
        "/admin/auth/user/add/",
        {"username": "RACE0", "password1": "a-long-pass-1", "password2": "a-long-pass-1",
         "usable_password": "true"},
    )  # fmt: skip
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert not User.objects.filter(username="RACE0").exists()


def test_existing_case_clashes_are_renamed_by_the_migration_oldest_keeps_its_name(make_user):
    from importlib import import_module

    migration = import_module("registry.migrations.0012_owner_names_held_once")
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX auth_user_username_ignoring_case")
    older, newer = make_user("race0"), make_user("Race0")

    migration.rename_case_clashes(apps, None)

    older.refresh_from_db()
    newer.refresh_from_db()
    assert older.username == "race0"
    assert newer.username == f"Race0-{newer.pk}"


@pytest.mark.parametrize("look_alike", ["paypa1", "pay_pal", "paypai", "pay-pa1"])
def test_an_owner_name_that_looks_like_a_held_one_is_refused(make_user, client_for, look_alike):
    submit_inline(client_for(make_user("paypal")), "wallet")
    Namespace.objects.filter(name=look_alike.lower()).exclude(account__username="paypal").delete()
    user = User.objects.filter(username__iexact=look_alike).first() or make_user(look_alike)
    response = submit_inline(client_for(user), "wallet")
    assert response.status_code == 400
    detail = response.json()["errors"]["name"][0]
    assert "paypal" in detail


def test_a_non_ascii_account_name_is_not_an_owner_name(make_user, client_for):
    response = submit_inline(client_for(make_user("аlice")), "hello")  # Cyrillic а
    assert response.status_code == 400
    assert "plain ASCII" in response.json()["errors"]["name"][0]


def test_the_publisher_check_runs_again_when_the_version_is_stored(make_user):
    """An approved git submission whose namespace changed hands meanwhile is not published."""
    author, new_holder = make_user("bea"), make_user("cleo")
    submission = submission_in(
        State.AUTO_APPROVED, author, repo_url="https://github.com/someorg/skills"
    )
    Namespace.objects.filter(name="someorg").update(account=new_holder, decided_by="operator")

    steps.run_publish(str(submission.pk), StepContext("pipeline.publish", "publish-1"))

    submission.refresh_from_db()
    assert submission.state == State.REJECTED
    assert submission.outcome_code == "NAME_TAKEN"
    assert "no longer lets this account publish" in submission.outcome_message
    assert not SkillVersion.objects.exists()


def test_a_reviewers_approval_into_a_namespace_that_changed_hands_publishes_nothing(make_user):
    """A reviewer's approval publishes through the same check (its conflict is a 409)."""
    author, new_holder = make_user("bea"), make_user("cleo")
    waiting = submission_in(
        State.TIER3_REVIEW, author, repo_url="https://github.com/someorg/skills"
    )
    Namespace.objects.filter(name="someorg").update(account=new_holder)

    with pytest.raises(NameTaken, match="no longer lets this account publish"):
        publish(
            waiting,
            SkillVersion.Channel.REVIEW,
            Actor("rita", ActorType.ADMIN),
            "reviewer-approved",
        )

    waiting.refresh_from_db()
    assert waiting.state == State.TIER3_REVIEW
    assert not SkillVersion.objects.exists()


def test_an_operator_gives_a_git_namespace_to_an_account_in_the_admin(make_user):
    operator = make_user("otto", staff=True)
    operator.groups.add(Group.objects.get(name="Operators"))
    holder = make_user("dana")
    admin = Client()
    admin.force_login(operator)
    form = {"name": "acme", "kind": "git", "host": "github.com", "git_owner": "acme",
            "account": holder.pk}  # fmt: skip
    assert admin.post("/admin/registry/namespace/add/", form).status_code == 302
    namespace = Namespace.objects.get(name="acme")
    assert (namespace.account, namespace.decided_by) == (holder, "the operator otto")
    look_alike = admin.post("/admin/registry/namespace/add/", {**form, "name": "acrne"})
    assert (
        look_alike.status_code == 200 and "looks like the namespace" in look_alike.content.decode()
    )


def test_a_sign_up_form_can_tell_whether_a_name_is_free(make_user):
    from registry.namespaces import check_available

    make_user("paypal")
    assert check_available("Carol") == "carol"
    for taken in ("PayPal", "paypa1", "pay.pal", "аlice"):
        with pytest.raises(NameTaken):
            check_available(taken)
