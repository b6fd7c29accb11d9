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
