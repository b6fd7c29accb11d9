"""``manage.py create_account`` and ``manage.py set_roles``: how accounts and roles are made."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from accounts.models import ApiToken

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_an_author_account_is_never_staff_and_comes_with_a_working_token():
    printed = run("create_account", "alice", "--email", "alice@example.com")
    alice = get_user_model().objects.get(username="alice")
    assert not alice.is_staff and not alice.is_superuser and not alice.groups.exists()
    password = printed.split("password: ", 1)[1].split()[0]
    key = printed.split("): ", 1)[1].split()[0]
    assert alice.check_password(password)
    assert ApiToken.objects.get(user=alice).scopes == ["read", "submit", "yank"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/account").json()["username"] == "alice"
    assert "skillgate login" in printed


def test_a_reviewer_account_is_staff_in_its_group_without_a_token():
    printed = run("create_account", "rita", "--role", "reviewers")
    rita = get_user_model().objects.get(username="rita")
    assert rita.is_staff and list(rita.groups.values_list("name", flat=True)) == ["Reviewers"]
    assert not ApiToken.objects.filter(user=rita).exists()
    assert "created rita (reviewers)" in printed


def test_roles_are_added_and_removed_and_staff_follows(make_user):
    make_user("otto")
    assert "Operators, Security (staff)" in run(
        "set_roles", "otto", "--add", "Operators", "--add", "security"
    )
    assert "Security (staff)" in run("set_roles", "otto", "--remove", "operators")
    assert "no role (not staff)" in run("set_roles", "otto", "--remove", "Security")
    assert not get_user_model().objects.get(username="otto").is_staff


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("create_account", "bob", "--role", "admins"), "no role 'admins'; the roles are"),
        (("set_roles", "nobody", "--add", "Reviewers"), "no account named 'nobody'"),
        (("set_roles", "alice"), "say --add ROLE or --remove ROLE"),
    ],
)
def test_mistakes_say_what_to_do(make_user, args, message):
    make_user("alice")
    with pytest.raises(CommandError, match=message):
        call_command(*args, stdout=io.StringIO())


def test_an_account_name_is_taken_whatever_its_case(make_user):
    make_user("Alice")
    with pytest.raises(CommandError, match="exists already"):
        call_command("create_account", "alice", stdout=io.StringIO())
