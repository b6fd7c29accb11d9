"""What people read speaks of the product's own rules, never of the documents it was built from
("seed 001 §4.4"): the API docs, the metrics, model help texts and names, every admin page, the
review page, the management commands' help, the README and docs/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib import admin
from django.core.management import get_commands, load_command_class
from django.db.models import Model
from django.test import Client
from django.urls import reverse

from pipeline.models import DeadLetter
from pipeline.services import steps
from pipeline.services.attempts import StepContext
from pipeline.states import State
from tests.unit.pipeline.factories import submission_in
from tests.unit.reviews.factories import awaiting_review, rm_finding

pytestmark = pytest.mark.django_db

SOURCE_CITATION = re.compile(r"\bseeds?\s*0\d\d", re.IGNORECASE)
OUR_APPS = ("pipeline", "registry", "grading", "reviews")
PAGES_PER_MODEL = 10
ROOT = Path(__file__).resolve().parents[3]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def citations(text: str) -> list[str]:
    return [text[max(0, m.start() - 60) : m.end() + 30] for m in SOURCE_CITATION.finditer(text)]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_the_readme_and_the_docs_cite_no_source_document(document):
    assert citations(document.read_text()) == []


def test_the_openapi_schema_cites_no_source_document():
    schema = Client().get("/api/schema/", HTTP_ACCEPT="application/json")
    assert schema.status_code == 200
    assert citations(schema.content.decode()) == []


def test_the_prometheus_metrics_cite_no_source_document():
    metrics = Client().get("/metrics")
    assert metrics.status_code == 200
    assert citations(metrics.content.decode()) == []


def test_model_help_texts_and_names_cite_no_source_document():
    texts = []
    for model in apps.get_models():
        meta = model._meta
        texts += [str(meta.verbose_name), str(meta.verbose_name_plural)]
        for field in meta.get_fields():
            texts += [str(getattr(field, "help_text", "")), str(getattr(field, "verbose_name", ""))]
    assert citations("\n".join(texts)) == []


def test_management_commands_help_cites_no_source_document():
    ours = {name: app for name, app in get_commands().items() if app in OUR_APPS}
    assert {"submit", "replay_dead_letters", "scan_corpus", "bootstrap_demo"} <= set(ours)
    for name, app in ours.items():
        command = load_command_class(app, name)
        usage = command.create_parser("manage.py", name).format_help()
        assert citations(usage) == [], name


def test_no_admin_page_cites_a_source_document(make_user, client):
    """Every registered model's list and the pages of its first records, with the records a
    running system has: a published submission, a review, a dead letter, the default trusted
    organisations and sweep schedules that the migrations install."""
    author = make_user("arthur")
    published = submission_in(State.RECEIVED, author)
    for task, step in (
        ("pipeline.scan", steps.run_intake),
        ("pipeline.scan", steps.run_scan),
        ("pipeline.judge", steps.run_judge),
        ("pipeline.publish", steps.run_publish),
    ):
        step(str(published.pk), StepContext(task))
    review = awaiting_review(author, name="in-review", findings=(rm_finding(),))
    DeadLetter.objects.create(
        submission=published, task_name="pipeline.judge", reason="retries_exhausted"
    )
    client.force_login(make_user("root", staff=True, is_superuser=True))

    pages = [reverse("admin:index"), reverse("admin:reviews_review_change", args=[review.pk])]
    model: type[Model]
    for model in admin.site._registry:
        opts = model._meta
        pages.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
        for pk in model._default_manager.values_list("pk", flat=True)[:PAGES_PER_MODEL]:
            pages.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[pk]))

    found = {}
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, page
        if hits := citations(response.content.decode()):
            found[page] = hits
    assert found == {}
