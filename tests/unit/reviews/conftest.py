"""People of the review tier: reviewers, a security member, a staff outsider and an author."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from reviews.roles import REVIEWERS_GROUP, SECURITY_GROUP
from tests.unit.reviews.factories import awaiting_review, rm_finding


def _in_group(user, group: str):
    user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def reviewer(make_user):
    return _in_group(make_user("rita", staff=True), REVIEWERS_GROUP)


@pytest.fixture
def other_reviewer(make_user):
    return _in_group(make_user("rob", staff=True), REVIEWERS_GROUP)


@pytest.fixture
def security(make_user):
    return _in_group(make_user("sven", staff=True), SECURITY_GROUP)


@pytest.fixture
def outsider(make_user):
    """Staff, so the admin lets them in, but in neither review group."""
    return make_user("olga", staff=True)


@pytest.fixture
def author(make_user):
    return make_user("arthur")


@pytest.fixture
def waiting(author):
    """A high-privilege skill with one finding, in NEEDS_REVIEW with its review open."""
    return awaiting_review(author, findings=(rm_finding(),))


@pytest.fixture
def signed_in(client):
    """The test client, signed in as the given user."""

    def sign_in(user):
        client.force_login(user)
        return client

    return sign_in
