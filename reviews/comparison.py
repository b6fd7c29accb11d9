"""Review from a diff: what a submission changes against the latest published version of its
skill, as every store reviewer works (a pull request, addons-server's compare view).

Files are added, removed, changed or unchanged (by content hash); each changed text file is a
unified diff (three lines of context) with the findings and concerns marked under the lines they
point at; and the page says which version approving will create (or reuse), by the registry's
own numbering rules. A skill's first submission has nothing to compare with: every file is new.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from registry.bundles import SKILL_FILE, Bundle, BundleFile
from registry.models import SkillVersion
from registry.services import PublicationPreview, preview_publication
from reviews.marks import Mark, MarksByLine, Segment, visible_segments
from skillformat.skillmd import SkillManifest

CONTEXT_LINES = 3


@dataclass(frozen=True)
class DiffRow:
    """A line of a unified diff: ``hunk`` (the ``@@`` header), ``context``, ``added`` or
    ``removed``, with its old and new line numbers and the marks on its new line."""

    kind: str
    old: int | None
    new: int | None
    segments: tuple[Segment, ...] = ()
    marks: tuple[Mark, ...] = ()
    header: str = ""


@dataclass(frozen=True)
class FileDiff:
    index: int
    path: str
    status: str
    """``added``, ``removed`` or ``changed``."""
    binary: bool
    rows: tuple[DiffRow, ...]
    marks_shown: int
    marks_elsewhere: int
    """Marks of this file on lines the diff does not show (unchanged since the base)."""

    @property
    def anchor(self) -> str:
        return f"diff-{self.index}"


@dataclass(frozen=True)
class Comparison:
    base: SkillVersion | None
    """The latest published version of the skill; None for a skill's first submission."""
    preview: PublicationPreview
    files: tuple[FileDiff, ...]
    unchanged: tuple[str, ...]

    def count(self, status: str) -> int:
        return sum(1 for diff in self.files if diff.status == status)

    @property
    def added(self) -> int:
        return self.count("added")

    @property
    def removed(self) -> int:
        return self.count("removed")

    @property
    def changed(self) -> int:
        return self.count("changed")


def compare(
    owner: str, name: str, bundle: Bundle, manifest: SkillManifest, marks: MarksByLine
) -> Comparison:
    """The submission's files against the skill's latest published version."""
    preview = preview_publication(owner, name, bundle.sha256, manifest.version)
    base = preview.latest
    old_files = {f.path: f for f in base.bundle.as_bundle().files} if base is not None else {}
    new_files = {f.path: f for f in bundle.files}
    diffs: list[FileDiff] = []
    unchanged = []
    for path in sorted(old_files.keys() | new_files.keys(), key=lambda p: (p != SKILL_FILE, p)):
        old, new = old_files.get(path), new_files.get(path)
        if old is not None and new is not None and old.sha256 == new.sha256:
            unchanged.append(path)
            continue
        diffs.append(_file_diff(len(diffs), path, old, new, marks.get(path, {})))
    return Comparison(base, preview, tuple(diffs), tuple(unchanged))


def _file_diff(
    index: int,
    path: str,
    old: BundleFile | None,
    new: BundleFile | None,
    marks: dict[int | None, list[Mark]],
) -> FileDiff:
    status = "added" if old is None else "removed" if new is None else "changed"
    old_text = old.text if old is not None else ""
    new_text = new.text if new is not None else ""
    total = sum(len(group) for group in marks.values())
    if old_text is None or new_text is None:
        return FileDiff(index, path, status, True, (), 0, total)
    rows = tuple(_rows(old_text.splitlines(), new_text.splitlines(), marks))
    shown = sum(len(row.marks) for row in rows)
    return FileDiff(index, path, status, False, rows, shown, total - shown)


def _rows(old: list[str], new: list[str], marks: dict[int | None, list[Mark]]) -> list[DiffRow]:
    rows: list[DiffRow] = []

    def shown(kind: str, old_number: int | None, new_number: int | None, text: str) -> DiffRow:
        on_line = tuple(marks.get(new_number, ())) if new_number is not None else ()
        return DiffRow(kind, old_number, new_number, visible_segments(text), on_line)

    matcher = difflib.SequenceMatcher(None, old, new)
    for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
        first, last = group[0], group[-1]
        rows.append(
            DiffRow(
                "hunk",
                None,
                None,
                header=f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@",
            )
        )
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows += [
                    shown("context", i + 1, j + 1, new[j])
                    for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
                ]
                continue
            rows += [shown("removed", i + 1, None, old[i]) for i in range(i1, i2)]
            rows += [shown("added", None, j + 1, new[j]) for j in range(j1, j2)]
    return rows


def _range(start: int, end: int) -> str:
    """A unified diff's ``start,length`` (1-based; a length of 0 names the line before)."""
    length = end - start
    return f"{start + 1 if length else start},{length}"
