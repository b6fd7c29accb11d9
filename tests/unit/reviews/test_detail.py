"""How the review page lays out a bundle: every mark at its line, nothing hidden."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pipeline.states import State
from registry.bundles import Bundle, BundleFile
from reviews.detail import annotate_files, time_in_queue
from reviews.marks import Segment, marks_by_line, visible_segments
from reviews.models import ReviewPeriod


def finding(file: str, line: int | None, rule: str = "r.one") -> dict:
    return {
        "rule_id": rule,
        "category": "c",
        "severity": "high",
        "file": file,
        "line": line,
        "message": f"{rule} here",
        "snippet": "",
    }


def test_skill_md_comes_first_then_files_with_marks_then_the_rest():
    bundle = Bundle.from_texts({"a.txt": "plain\n", "SKILL.md": "---\n", "z/run.sh": "rm -rf /\n"})
    views = annotate_files(bundle, marks_by_line([finding("z/run.sh", 1)], []))
    assert [v.path for v in views] == ["SKILL.md", "z/run.sh", "a.txt"]
    assert [v.anchor for v in views] == ["file-0", "file-1", "file-2"]


def test_marks_sit_under_their_line_or_on_the_file_when_the_line_is_not_there():
    bundle = Bundle.from_texts({"SKILL.md": "one\ntwo\nthree\n"})
    concern = {
        "category": "exfiltration",
        "severity": "medium",
        "file": "SKILL.md",
        "line": 2,
        "evidence": "posts data",
    }
    findings = [
        finding("SKILL.md", 2),
        finding("SKILL.md", 9, "r.far"),
        finding("SKILL.md", None, "r.file"),
    ]
    (view,) = annotate_files(bundle, marks_by_line(findings, [concern]))
    assert [(line.number, [m.title for m in line.marks]) for line in view.lines] == [
        (1, []),
        (2, ["r.one", "Exfiltration"]),
        (3, []),
    ]
    assert [m.source for m in view.lines[1].marks] == ["Tier 1", "Tier 2"]
    assert sorted(m.title for m in view.file_marks) == ["r.far", "r.file"]
    assert view.mark_count == 4


def test_binary_files_are_listed_but_not_shown():
    bundle = Bundle([BundleFile("SKILL.md", b"---\n"), BundleFile("logo.png", b"\x89PNG\xff")])
    views = annotate_files(bundle, {})
    assert [(v.path, v.binary, len(v.lines)) for v in views] == [
        ("SKILL.md", False, 1),
        ("logo.png", True, 0),
    ]


def test_characters_one_cannot_see_become_visible_markers():
    assert visible_segments("plain text") == (Segment("plain text"),)
    assert visible_segments("a\u200bb\u202ec\U000e0041\u00a0d\te") == (
        Segment("a"),
        Segment("⟦U+200B⟧", hidden=True),
        Segment("b"),
        Segment("⟦U+202E⟧", hidden=True),
        Segment("c"),
        Segment("⟦U+E0041⟧", hidden=True),
        Segment("⟦U+00A0⟧", hidden=True),
        Segment("d\te"),
    )
    assert visible_segments("café ünïcode") == (Segment("café ünïcode"),)


def test_time_in_queue_adds_up_each_kind_of_wait():
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def period(state, minutes_from, minutes_to, escalated=False) -> ReviewPeriod:
        return ReviewPeriod(
            state=state,
            escalated=escalated,
            started_at=start + timedelta(minutes=minutes_from),
            ended_at=None if minutes_to is None else start + timedelta(minutes=minutes_to),
        )

    totals = time_in_queue(
        [
            period(State.NEEDS_REVIEW, 0, 30),
            period(State.TIER3_REVIEW, 30, 40),
            period(State.NEEDS_REVIEW, 40, 100),
            period(State.TIER3_REVIEW, 100, 160),
            period(State.NEEDS_REVIEW, 160, 200, escalated=True),
            period(State.TIER3_REVIEW, 200, None, escalated=True),
        ],
        now=start + timedelta(days=1, minutes=200),
    )
    assert [(t.label, t.text) for t in totals] == [
        ("Waiting in the queue", "1 h 30 min"),
        ("In Tier 3 review", "1 h 10 min"),
        ("Waiting for Security", "0 h 40 min"),
        ("In Security review", "1 d 0 h 00 min"),
    ]
