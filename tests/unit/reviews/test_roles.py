"""The Reviewers and Security groups exist with exactly the permissions they need."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

pytestmark = pytest.mark.django_db


def permissions_of(name: str) -> set[str]:
    group = Group.objects.get(name=name)
    return {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()}


def test_reviewers_can_read_the_queue_and_act_but_edit_nothing():
    assert permissions_of("Reviewers") == {
        "reviews.view_review",
        "reviews.act_on_review",
        "reviews.view_cannedreason",
    }


def test_security_can_also_act_on_escalated_reviews_decide_appeals_and_keep_canned_reasons():
    assert permissions_of("Security") == {
        "reviews.view_review",
        "reviews.act_on_review",
        "reviews.decide_escalated_review",
        "reviews.view_appeal",
        "reviews.view_cannedreason",
        "reviews.add_cannedreason",
        "reviews.change_cannedreason",
        "reviews.delete_cannedreason",
    }


def test_group_membership_is_what_makes_a_reviewer(reviewer, security, outsider):
    assert reviewer.has_perm("reviews.act_on_review")
    assert not reviewer.has_perm("reviews.decide_escalated_review")
    assert security.has_perm("reviews.decide_escalated_review")
    assert not outsider.has_perm("reviews.view_review")
