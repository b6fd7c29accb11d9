"""Reviewers teach the scanner: each finding marked confirmed or false positive, per-rule
precision over 90 days for operators, in the admin and in /metrics."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import timezone

from reviews.feedback import mark_finding, rule_precision
from reviews.models import FindingFeedback
from reviews.services import ReviewForbidden
from tests.unit.reviews.factories import awaiting_review, rm_finding

pytestmark = pytest.mark.django_db


def test_a_reviewer_marks_a_finding_and_may_change_their_word(waiting, reviewer):
    finding = rm_finding()
    mark_finding(waiting.pk, reviewer, finding.rule_id, finding.file, finding.line, "confirmed")
    mark_finding(
        waiting.pk, reviewer, finding.rule_id, finding.file, finding.line, "false_positive"
    )
    assert list(FindingFeedback.objects.values_list("verdict", flat=True)) == ["false_positive"]


def test_only_findings_of_the_review_by_its_reviewers_not_its_author(waiting, reviewer, author):
    finding = rm_finding()
    with pytest.raises(ValidationError):
        mark_finding(waiting.pk, reviewer, "made.up-rule", finding.file, finding.line, "confirmed")
    with pytest.raises(ValidationError):
        mark_finding(waiting.pk, reviewer, finding.rule_id, finding.file, 99, "confirmed")
    with pytest.raises(ValidationError):
        mark_finding(waiting.pk, reviewer, finding.rule_id, finding.file, finding.line, "maybe")
    with pytest.raises(ReviewForbidden):
        mark_finding(waiting.pk, author, finding.rule_id, finding.file, finding.line, "confirmed")


def test_precision_per_rule_over_the_last_90_days_least_precise_first(author, reviewer):
    finding = rm_finding()
    for index, verdict in enumerate(("confirmed", "false_positive", "false_positive")):
        review = awaiting_review(author, name=f"tidy-{index}", findings=(finding,))
        mark_finding(review.pk, reviewer, finding.rule_id, finding.file, finding.line, verdict)
    old = awaiting_review(author, name="tidy-old", findings=(finding,))
    mark_finding(old.pk, reviewer, finding.rule_id, finding.file, finding.line, "confirmed")
    FindingFeedback.objects.filter(review=old).update(marked_at=timezone.now() - timedelta(days=91))

    [rule] = rule_precision()
    assert (rule.rule_id, rule.marked, rule.confirmed) == ("destructive.rm-rf", 3, 1)
    assert round(rule.precision, 3) == 0.333


def test_the_review_page_offers_the_marks_and_records_them(waiting, reviewer):
    client = Client()
    client.force_login(reviewer)
    url = f"/admin/reviews/review/{waiting.pk}/change/"
    page = client.get(url).content.decode()
    assert 'name="verdict" value="false_positive"' in page
    finding = rm_finding()
    response = client.post(
        f"/admin/reviews/review/{waiting.pk}/mark/",
        {"rule_id": finding.rule_id, "file": finding.file, "line": finding.line,
         "verdict": "false_positive"},
    )  # fmt: skip
    anchor = "#finding-destructiverm-rf-scriptslargestsh-3"
    assert response.status_code == 302 and response["Location"].endswith(anchor)
    assert FindingFeedback.objects.get().verdict == "false_positive"
    assert "mark-button marked" in client.get(url).content.decode()


def test_operators_read_precision_in_the_admin_and_in_metrics(waiting, reviewer, make_user):
    from django.contrib.auth.models import Group

    finding = rm_finding()
    mark_finding(waiting.pk, reviewer, finding.rule_id, finding.file, finding.line, "confirmed")
    operator = make_user("otto", staff=True)
    operator.groups.add(Group.objects.get(name="Operators"))
    client = Client()
    client.force_login(operator)
    page = client.get("/admin/reviews/review/rule-precision/")
    assert page.status_code == 200 and "destructive.rm-rf" in page.content.decode()
    metrics = Client().get("/metrics").content.decode()
    assert 'skillgate_rule_precision{rule="destructive.rm-rf"} 1.0' in metrics
    assert 'skillgate_rule_findings_marked{rule="destructive.rm-rf",verdict="confirmed"} 1.0' in (
        metrics
    )
    reviewer_client = Client()
    reviewer_client.force_login(reviewer)
    assert reviewer_client.get("/admin/reviews/review/rule-precision/").status_code == 403
