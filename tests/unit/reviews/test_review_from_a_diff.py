"""Review from a diff: an update of a published skill is shown as what it changes against the
latest published version (files added, removed, changed; a unified diff per file with the
findings on its changed lines) and says which version approving creates. Tier 1 findings and
the judge's concerns that restate them are one mark."""

from __future__ import annotations

import re

import pytest

from pipeline.models import Submission
from registry.bundles import Bundle
from reviews.comparison import compare
from reviews.marks import marks_by_line
from skillformat.skillmd import parse_manifest
from tests.support.versions import publish_files
from tests.unit.reviews.factories import SCRIPT, awaiting_review, disk_tidy_files, rm_finding

pytestmark = pytest.mark.django_db

CRON = "(crontab -l; echo '0 3 * * * rm -rf ~/.cache/build') | crontab -\n"


def updated_files() -> dict[str, str]:
    """disk-tidy 1.0.0 plus a crontab line, a new file, and its notes file removed."""
    files = disk_tidy_files()
    files["scripts/largest.sh"] = SCRIPT + CRON
    files["scripts/schedule.sh"] = "#!/bin/sh\necho scheduled\n"
    return files


def comparison_of(files: dict[str, str], findings=()):
    bundle = Bundle.from_texts(files)
    manifest = parse_manifest(files["SKILL.md"])
    marks = marks_by_line([f.to_dict() for f in findings], [])
    return compare("arthur", manifest.name, bundle, manifest, marks)


def test_a_first_submission_has_every_file_new_and_becomes_1_0_0(author):
    comparison = comparison_of(disk_tidy_files())
    assert comparison.base is None
    assert [(d.path, d.status) for d in comparison.files] == [
        ("SKILL.md", "added"),
        ("scripts/largest.sh", "added"),
    ]
    assert (comparison.preview.version, comparison.preview.creates) == ("1.0.0", True)


def test_an_update_shows_what_changed_against_the_latest_published_version(author):
    base_files = {**disk_tidy_files(), "NOTES.md": "old notes\n"}
    published = publish_files(author, base_files, name="disk-tidy")
    finding = rm_finding(line=4)  # on the crontab line the update adds

    comparison = comparison_of(updated_files(), [finding])

    assert comparison.base == published
    assert (comparison.preview.version, comparison.preview.creates) == ("1.0.1", True)
    assert {d.path: d.status for d in comparison.files} == {
        "scripts/largest.sh": "changed",
        "NOTES.md": "removed",
        "scripts/schedule.sh": "added",
    }
    assert comparison.unchanged == ("SKILL.md",)
    (script,) = [d for d in comparison.files if d.path == "scripts/largest.sh"]
    assert [(row.kind, row.old, row.new) for row in script.rows] == [
        ("hunk", None, None),
        ("context", 1, 1),
        ("context", 2, 2),
        ("context", 3, 3),
        ("added", None, 4),
    ]
    assert script.rows[0].header == "@@ -1,3 +1,4 @@"
    added = script.rows[-1]
    assert "".join(s.text for s in added.segments) == CRON.rstrip("\n")
    assert [m.title for m in added.marks] == ["destructive.rm-rf"]
    assert (script.marks_shown, script.marks_elsewhere) == (1, 0)


def test_findings_on_lines_the_diff_does_not_show_are_counted_not_lost(author):
    long_script = "".join(f"echo {n}\n" for n in range(1, 21))
    files = {**disk_tidy_files(), "scripts/largest.sh": long_script}
    publish_files(author, files, name="disk-tidy")
    changed = {**files, "scripts/largest.sh": long_script + "rm -rf /tmp/x\n"}
    comparison = comparison_of(changed, [rm_finding(line=2), rm_finding(line=21)])
    (script,) = comparison.files
    assert (script.marks_shown, script.marks_elsewhere) == (1, 1)


def test_a_declared_version_is_taken_and_identical_files_reuse_the_version(author):
    publish_files(author, disk_tidy_files(), name="disk-tidy")
    declared = updated_files()
    declared["SKILL.md"] = declared["SKILL.md"].replace("---\n#", "version: 2.0.0\n---\n#", 1)
    assert "version: 2.0.0" in declared["SKILL.md"]
    assert comparison_of(declared).preview.version == "2.0.0"

    same = comparison_of(disk_tidy_files())
    assert (same.preview.version, same.preview.creates, same.files) == ("1.0.0", False, ())


def test_the_review_page_shows_the_diff_and_the_version_approval_creates(
    signed_in, reviewer, author
):
    publish_files(author, disk_tidy_files(), name="disk-tidy")
    review = awaiting_review(author, files=updated_files(), findings=(rm_finding(line=4),))

    html = signed_in(reviewer).get(f"/admin/reviews/review/{review.pk}/change/").text

    assert re.search(r'id="changes-base">arthur/disk-tidy@1.0.0</a>', html)
    assert "1 added, 0 removed, 1 changed, 1 unchanged" in html
    assert "Approving creates version <strong>1.0.1</strong>" in html
    changed = html.split('data-path="scripts/largest.sh" data-status="changed"', 1)[1]
    changed = changed.split("</table>", 1)[0]
    assert '<tr class="diff-added flagged" data-line="4">' in changed
    assert "Tier 1 · high · destructive.rm-rf" in changed


def test_a_judge_concern_that_restates_a_finding_is_one_mark():
    finding = rm_finding(line=3).to_dict()
    restated = {
        "category": "destructive-commands",
        "severity": "critical",
        "file": "scripts/largest.sh",
        "line": 3,
        "evidence": f"destructive.rm-rf: {finding['snippet']}",
    }
    other = {**restated, "category": "exfiltration", "evidence": "posts the cache somewhere"}
    marks = marks_by_line([finding], [restated, other])["scripts/largest.sh"][3]
    assert [(m.source, m.severity, m.title) for m in marks] == [
        ("Tier 1 + Tier 2", "critical", "destructive.rm-rf"),
        ("Tier 2", "critical", "Exfiltration"),
    ]
    assert marks[0].judge == "", "the judge only repeated the finding: nothing more to show"


def test_the_diff_lists_nothing_for_a_submission_without_a_published_skill_of_its_name(author):
    publish_files(author, disk_tidy_files("other-skill"), name="other-skill")
    review = awaiting_review(author)
    submission = Submission.objects.get(pk=review.pk)
    assert submission.skill_name == "disk-tidy"
    assert comparison_of(disk_tidy_files()).base is None
