"""Version assignment for published skills (semantic versions, via the ``semver`` library)."""

from __future__ import annotations

import semver

FIRST_VERSION = "1.0.0"


def parse(version: str | None) -> semver.Version | None:
    if not version:
        return None
    try:
        return semver.Version.parse(version.strip().removeprefix("v"))
    except (ValueError, TypeError):
        return None


def numbering_note(assigned: str, declared: str | None) -> str:
    """Why a version was not numbered as its front matter declares ("" when it was, or when it
    declares none), in words for its author."""
    if not declared or not declared.strip():
        return ""
    wanted = parse(declared)
    if wanted is None:
        return (
            f"the front matter's version {declared.strip()!r} is not a semantic version "
            "(MAJOR.MINOR.PATCH), so the registry numbered it"
        )
    if str(wanted) == assigned:
        return ""
    if assigned == FIRST_VERSION:
        return (
            f"the front matter declares {wanted}, but a skill's first version is always "
            f"{FIRST_VERSION}; later versions take a declared version greater than the newest"
        )
    return (
        f"the front matter declares {wanted}, which is not greater than the newest version, so "
        "it took the next patch number"
    )


def next_version(latest: str | None, declared: str | None) -> str:
    """The version a new publication gets.

    The first is ``1.0.0``. Later ones take the front matter's ``version`` when it is valid
    semver and greater than the latest; otherwise the latest's next patch.
    """
    if latest is None:
        return FIRST_VERSION
    current = semver.Version.parse(latest)
    wanted = parse(declared)
    if wanted is not None and wanted > current:
        return str(wanted)
    return str(current.bump_patch())
