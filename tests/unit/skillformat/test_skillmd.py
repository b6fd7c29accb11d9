"""Issue 9 item 6: one SKILL.md parser for intake, Tier 1, the judge and publishing.

Intake used to accept front matter that Tier 1 did not see (a byte-order mark, ``--- `` as the
first line), so a typosquatted name passed Tier 1 unnoticed. Every consumer now reads the file
through ``skillformat.skillmd``; the property test feeds generated variants through all of them
and requires that they agree.
"""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grading.judges.prompt import declared_manifest
from grading.tier1 import scan
from grading.tier1.catalogue import load_catalogue
from grading.tier1.files import frontmatter_span
from grading.tier1.findings import Collector
from grading.tier1.metadata import check_manifest
from pipeline.services.submissions import skill_manifest
from pipeline.sources.errors import SourceRejected
from registry.bundles import Bundle
from skillformat import skillmd
from skillformat.skillmd import (
    MAX_FRONT_MATTER_BYTES,
    MAX_VERSION_CHARS,
    SkillFileError,
    SkillManifest,
    parse_manifest,
)

FORMAT_RULES = {
    "metadata.missing-frontmatter",
    "metadata.invalid-frontmatter",
    "metadata.bad-name",
    "metadata.missing-description",
    "metadata.long-description",
}


def intake(text: str) -> SkillManifest | None:
    try:
        return skill_manifest(Bundle.from_texts({"SKILL.md": text}), "files")
    except SourceRejected:
        return None


def tier1(text: str) -> tuple[set[str], tuple[str, str, tuple[str, ...]]]:
    collector = Collector()
    manifest = check_manifest({"SKILL.md": text}, load_catalogue(), collector)
    rules = {finding.rule_id for finding in collector.findings}
    return rules, (manifest.name, manifest.description, manifest.allowed_tools)


# --- the findings of the issue, one by one ---------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "\ufeff---\nname: reqeusts-helper\ndescription: Helps.\n---\nbody\n",
        "--- \nname: reqeusts-helper\ndescription: Helps.\n---\nbody\n",
        "---\t\nname: reqeusts-helper\ndescription: Helps.\n---\nbody\n",
    ],
)
def test_front_matter_tier1_cannot_see_is_refused_at_intake(text):
    assert intake(text) is None
    rules, _ = tier1(text)
    assert rules & FORMAT_RULES


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("---\nname: -hello--\ndescription: d\n---\n", "is invalid"),
        ("---\nname: hello\ndescription: d\n...\n", "exactly '---'"),
        ("---\nname: &n hello\ndescription: *n\n---\n", "aliases"),
        ("---\nname: hello\nname: other\ndescription: d\n---\n", "appears twice"),
        ("---\n<<: {name: hello}\ndescription: d\n---\n", "merge keys"),
        ("---\nname: hello\ndescription: d\nversion: " + "1" * 306 + "\n---\n", "version"),
        ("---\nname: " + "[" * 5000 + "\n---\n", "nested deeper"),
        ("---\nname: hello\rdescription: d\n---\n", "line ends"),
        ("---\nname: hello\u2028description: d\n---\n", "line ends"),
        ("---\nname: hello\ndescription: d\npad: " + "x" * 17_000 + "\n---\n", "16 KB"),
    ],
)
def test_every_consumer_refuses_what_the_parser_refuses(text, problem):
    with pytest.raises(SkillFileError, match=problem):
        parse_manifest(text)
    assert intake(text) is None
    assert tier1(text)[0] & FORMAT_RULES
    assert declared_manifest({"SKILL.md": text}) is None


def test_a_typosquatted_name_in_valid_front_matter_is_reported_by_tier1():
    text = "---\r\nname: reqeusts-helper\r\ndescription: Helps.\r\n---\r\nbody\r\n"
    manifest = intake(text)
    assert manifest is not None
    assert manifest.name == "reqeusts-helper"
    assert "supply-chain.typosquat-name" in {f.rule_id for f in scan({"SKILL.md": text}).findings}


# --- the property: generated variants through every consumer -------------------------------

NAMES = st.one_of(
    st.sampled_from(
        ["hello", "-hello--", "Hello", "hello_world", "a" * 65, "a" * 64, "reqeusts-helper",
         "pdf-tools", "'quoted-name'", '"dq-name"', "123", "yes", "null", "", "[a, b]"]
    ),
    st.from_regex(r"[a-z0-9-]{1,70}", fullmatch=True),
)  # fmt: skip
DESCRIPTIONS = st.one_of(
    st.sampled_from(["Says hello.", "", "'quoted: colon'", "a" * 1025, "[1, 2]", "|\n  block"]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40),
)
EXTRA_LINES = st.lists(
    st.sampled_from(
        ["version: 1.2.3", "version: 2", "version: " + "9" * 70, "version: [1]",
         "allowed-tools: Bash", "allowed-tools: [Read, 'Bash(git:*)']", "anchor: &a x",
         "alias: *a", "<<: {k: v}", "name: again", "description: again", "tag: !!str x",
         "nested: " + "[" * 30 + "]" * 30, "metadata: {author: me}", "# a comment", ""]
    ),
    max_size=4,
)  # fmt: skip


@st.composite
def skill_files(draw: st.DrawFn) -> str:
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    opener = draw(st.sampled_from(["---", "---", "--- ", "---\t", "----"]))
    closer = draw(st.sampled_from(["---", "---", "...", "--- ", ""]))
    bom = "\ufeff" if draw(st.booleans()) and draw(st.booleans()) else ""
    lines = [f"name: {draw(NAMES)}", f"description: {draw(DESCRIPTIONS)}", *draw(EXTRA_LINES)]
    lines = draw(st.permutations(lines))
    padding = draw(st.sampled_from([0, 0, 0, MAX_FRONT_MATTER_BYTES - 200, MAX_FRONT_MATTER_BYTES]))
    if padding:
        lines.append("pad: " + "x" * padding)
    body = draw(st.sampled_from(["# Hello\n\nSay hello.\n", "", "---\nname: late\n---\n"]))
    return bom + eol.join([opener, *lines, closer]) + eol + body


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(skill_files())
def test_intake_tier1_the_judge_and_publishing_read_the_same_manifest(text):
    accepted = intake(text)
    rules, tier1_view = tier1(text)
    judged = declared_manifest({"SKILL.md": text})
    if accepted is None:
        assert rules & FORMAT_RULES, (text[:200], rules)
        assert judged is None
        return
    assert not rules & FORMAT_RULES, (text[:200], rules)
    assert frontmatter_span(text) is not None
    assert tier1_view == (accepted.name, accepted.description, accepted.allowed_tools)
    assert judged == accepted
    stored = SkillManifest.from_json(accepted.to_json())
    assert stored == accepted
    assert stored.version is None or len(stored.version) <= MAX_VERSION_CHARS


_KEYS = ["name", "description", "version", "allowed-tools", "on", "null", "y", "x_1"]
_VALUES = [
    "demo", "A tool: fast", "see https://x.example/a", "it's", "C# code", "1.0", "1:30", "~",
    "2024-01-01", "yes", "-flag", "[a, b]", "{a: 1}", "'quoted'", "'it''s'", '"esc\\"aped"',
    '"a: b"', "a  b  ", "café", "a\u00a0", "&anchor x", "*alias", "!tag x", "| ", "> x", "",
    "a #comment", "a\tb", "'open", "null", ".inf", "0x1F", "x,y", "@x", "`x`",
]  # fmt: skip


@given(
    st.lists(
        st.tuples(st.sampled_from(_KEYS), st.sampled_from(_VALUES), st.sampled_from([" ", "  "])),
        max_size=4,
    ),
    st.sampled_from(["\n", "\n\n", "\n  more\n"]),
)
@settings(max_examples=300, deadline=None)
def test_simple_front_matter_reads_as_the_strict_loader_does(
    entries: list[tuple[str, str, str]], ending: str
) -> None:
    """The fast path for ``key: value`` lines builds exactly the loader's mapping, and leaves
    everything else (numbers, dates, booleans, comments, flow collections, continuations,
    repeated keys, invalid YAML) to the loader."""
    source = "".join(f"{key}:{gap}{value}\n" for key, value, gap in entries) + ending[1:]
    simple = skillmd._simple_front_matter(source)
    if simple is None:
        return
    assert simple == yaml.load(source, Loader=skillmd._StrictLoader)


def test_ordinary_front_matter_takes_the_fast_path() -> None:
    source = "name: pdf-tools\ndescription: Fill forms, see https://x.example/a (v2).\n"
    assert skillmd._simple_front_matter(source) == {
        "name": "pdf-tools",
        "description": "Fill forms, see https://x.example/a (v2).",
    }
