"""Every place an account is made names it by one rule (``accounts.services.check_new_username``):
unique ignoring case, and a valid owner name that no other source holds and that looks like
none held — because an account publishes under its own name. Each refusal is a message that
says why, never a database error."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from registry.models import Namespace

pytestmark = pytest.mark.django_db

User = get_user_model()


@pytest.fixture
def held(make_user):
    """``paypal`` (an account) and ``acme`` (a git owner on github.com) are held."""
    make_user("paypal")
    Namespace.objects.create(
        name="acme", skeleton="acme", kind=Namespace.Kind.GIT, host="github.com", git_owner="acme"
    )


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("PayPal", "an account named 'PayPal' exists already (account names are compared"),
        ("paypa1", "'paypa1' looks like the namespace 'paypal'"),
        ("pay.pal", "'pay.pal' looks like the namespace 'paypal'"),
        ("acme", "the namespace 'acme' belongs to the git owner acme on github.com"),
        ("ACRNE", "'ACRNE' looks like the namespace 'acme'"),
        ("bob@example.com", "cannot be an owner name: use plain ASCII letters"),
    ],
)
def test_create_account_refuses_a_name_that_would_clash_and_says_why(held, name, message):
    with pytest.raises(CommandError) as refused:
        call_command("create_account", name, stdout=io.StringIO())
    assert message in str(refused.value)
    assert not User.objects.filter(username=name).exists()


def test_a_free_name_makes_the_account_and_its_namespace(held):
    call_command("create_account", "carol", stdout=io.StringIO())
    carol = User.objects.get(username="carol")
    assert Namespace.objects.get(name="carol").account == carol


@pytest.mark.parametrize("name", ["PAYPAL", "paypa1", "acme"])
def test_createsuperuser_refuses_with_the_same_message_not_a_database_error(
    held, monkeypatch, name
):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a-long-pass-1")
    with pytest.raises(CommandError) as refused:
        call_command(
            "createsuperuser",
            "--noinput",
            "--username",
            name,
            "--email",
            "root@example.com",
            stdout=io.StringIO(),
        )
    assert "exists already" in str(refused.value) or "cannot name an account" in str(refused.value)
    assert not User.objects.filter(username=name).exists()


def test_createsuperuser_makes_a_superuser_under_a_free_name(held, monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a-long-pass-1")
    call_command(
        "createsuperuser", "--noinput", "--username", "root", "--email", "r@example.com",
        stdout=io.StringIO(),
    )  # fmt: skip
    assert User.objects.get(username="root").is_superuser


def admin_client(make_user) -> Client:
    client = Client()
    client.force_login(make_user("root", staff=True, is_superuser=True))
    return client


def test_the_admin_refuses_a_look_alike_account_name(held, make_user):
    response = admin_client(make_user).post(
        "/admin/auth/user/add/",
        {"username": "paypa1", "password1": "a-long-pass-1", "password2": "a-long-pass-1",
         "usable_password": "true"},
    )  # fmt: skip
    assert response.status_code == 200
    assert "looks like the namespace" in response.content.decode()
    assert not User.objects.filter(username="paypa1").exists()


def test_renaming_an_account_in_the_admin_is_checked_but_its_own_name_is_not_a_clash(
    held, make_user
):
    dana = make_user("dana")
    client = admin_client(make_user)
    form = {"username": "ACME", "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00"}
    refused = client.post(f"/admin/auth/user/{dana.pk}/change/", form)
    assert refused.status_code == 200
    assert "belongs to the git owner acme" in refused.content.decode()
    kept = client.post(f"/admin/auth/user/{dana.pk}/change/", {**form, "username": "Dana"})
    assert kept.status_code == 302, kept.content.decode()[:2000]
    assert User.objects.get(pk=dana.pk).username == "Dana"
