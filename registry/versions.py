"""Version assignment for published skills (semantic versions, via the ``semver`` library).

A skill's first version is ``1.0.0``. Every later one takes the version its SKILL.md declares
when that is valid semver, above the newest *release* (a version without a pre-release tag)
and not taken yet; otherwise the next patch after the newest release — and a declared
pre-release keeps its tag on that number, so a release candidate never turns into a release by
being renumbered. Build metadata (``+…``) is dropped: it says nothing about precedence.

Pre-releases (``3.0.0-rc.1``) are published and install by their exact number, but are never
"latest" (as pip and npm treat them): ``is_prerelease`` is the one test, on the stored number.
Every assignment comes with a sentence saying why the number was chosen, for the author.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import semver

FIRST_VERSION = "1.0.0"
PRERELEASE_PATTERN = r"^[0-9]+\.[0-9]+\.[0-9]+-"
"""A stored number with a pre-release tag (stored numbers carry no build metadata)."""
_PRERELEASE = re.compile(PRERELEASE_PATTERN)


@dataclass(frozen=True)
class Numbering:
    """The number a new version gets, and why, in words an author reads in the outcome."""

    number: str
    reason: str


def parse(version: str | None) -> semver.Version | None:
    if not version:
        return None
    try:
        parsed = semver.Version.parse(version.strip().removeprefix("v"))
    except (ValueError, TypeError):
        return None
    return parsed.replace(build=None)


def is_prerelease(number: str) -> bool:
    return bool(_PRERELEASE.match(number))


def next_version(existing: Iterable[str], declared: str | None) -> Numbering:
    """The number of a new version of a skill whose versions (any status) are ``existing``."""
    taken = set(existing)
    if not taken:
        return Numbering(FIRST_VERSION, _first_version_reason(declared))
    releases = [v for v in (parse(n) for n in taken if not is_prerelease(n)) if v is not None]
    newest = max(releases) if releases else semver.Version.parse(FIRST_VERSION)
    wanted = parse(declared)
    if wanted is not None and wanted > newest and str(wanted) not in taken:
        kind = "pre-release " if wanted.prerelease else ""
        return Numbering(
            str(wanted),
            f"the declared {kind}version {wanted}, above the newest release {newest}",
        )
    after = newest.bump_patch()
    if wanted is not None and wanted.prerelease:
        number = after.replace(prerelease=wanted.prerelease)
        while str(number) in taken:
            number = number.bump_prerelease()
        return Numbering(
            str(number),
            f"the declared pre-release {wanted} is {_why_not(wanted, newest, taken)}: its tag "
            f"was kept on the next patch after the newest release {newest}",
        )
    if wanted is None:
        why = _not_semver(declared) if declared and declared.strip() else "no version was declared"
    else:
        why = f"the declared version {wanted} is {_why_not(wanted, newest, taken)}"
    return Numbering(str(after), f"{why}: the next patch after the newest release {newest}")


def _first_version_reason(declared: str | None) -> str:
    wanted = parse(declared)
    if wanted is None and declared and declared.strip():
        return f"{_not_semver(declared)}; the first version of a skill is {FIRST_VERSION}"
    if wanted is not None and str(wanted) != FIRST_VERSION:
        return (
            f"the front matter declares {wanted}, but a skill's first version is always "
            f"{FIRST_VERSION}; later versions take a declared version greater than the newest"
        )
    return f"the first version of a skill is {FIRST_VERSION}"


def _not_semver(declared: str) -> str:
    return (
        f"the front matter's version {declared.strip()!r} is not a semantic version "
        "(MAJOR.MINOR.PATCH)"
    )


def _why_not(wanted: semver.Version, newest: semver.Version, taken: set[str]) -> str:
    if str(wanted) in taken:
        return "taken already"
    return f"not above the newest release {newest}"
