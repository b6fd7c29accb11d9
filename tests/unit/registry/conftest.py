"""People of the registry tests: an author who owns a skill, someone else, and Security."""

from __future__ import annotations

import pytest

from tests.support.versions import make_security, publish_skill


@pytest.fixture
def author(make_user):
    return make_user("arthur")


@pytest.fixture
def stranger(make_user):
    return make_user("stella")


@pytest.fixture
def security(make_user):
    return make_security(make_user("sven", staff=True))


@pytest.fixture
def version(author):
    """arthur/note-taker@1.0.0, published."""
    return publish_skill(author)
