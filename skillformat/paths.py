"""Safe file paths inside a skill: relative, forward slashes, and unambiguous on every
filesystem the skill may be installed on.

A path is refused when it could escape the skill folder or mean something else on some
filesystem: ``..`` and its look-alikes (``‥``, fullwidth ``．．``, ``%2e%2e``), separators
other than ``/`` (``\\``, ``／``, ``∕``), names Windows reserves or rewrites (``CON``, trailing
dots and spaces, ``<>:"|?*``, 8.3 short names such as ``GIT~1``), ``~`` (a home directory to a
shell), and the control folders of version-control systems (``.git``, ``.hg``, …), whose files
configure commands that run when someone uses the installed folder.

Paths are normalised to Unicode NFC. Within one skill, two paths that differ only in case or in
normalisation (``a.txt``/``A.TXT``, NFC/NFD ``café.md``) would overwrite each other on
case-insensitive or normalising filesystems, and a file cannot share its name with a folder
(``SKILL.md`` and ``SKILL.md/x``): those bundles are refused too.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

VCS_CONTROL_NAMES = frozenset(
    {".git", ".hg", ".svn", ".bzr", "_darcs", "cvs", ".pijul", ".jj", ".sl", "_fossil_",
     ".fslckout", ".fossil-settings"}
)  # fmt: skip
WINDOWS_RESERVED_NAMES = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$", "clock$"}
    | {f"{device}{n}" for device in ("com", "lpt") for n in (*"123456789", "¹", "²", "³")}
)
_WINDOWS_FORBIDDEN = frozenset('<>:"|?*')
# Characters that read as a slash or a dot but that Unicode NFKC leaves alone.
_SEPARATOR_LOOKALIKES = frozenset("\u2044\u2215\u2216\u2571\u2572\u29f5\u29f8\u29f9\ufe68\uff3c")
_DOT_LOOKALIKES = frozenset(".\u2024\u2025\u2026\u3002\ufe52\uff0e\uff61")
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_SHORT_NAME = re.compile(r"~\d")


class UnsafePath(ValueError):
    """The path cannot be accepted; the message names it and says why."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def safe_relative_path(path: str, *, max_length: int) -> str:
    """``path`` in NFC if it is a safe relative path, else UnsafePath naming it."""
    if not path:
        raise UnsafePath(path, "path is empty")
    if len(path) > max_length:
        raise UnsafePath(path, f"path {path[:40]!r}… is longer than {max_length} characters")
    if "\\" in path:
        raise UnsafePath(path, f"path {path!r} contains a backslash: use '/' separators")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise UnsafePath(path, f"path {path!r} is absolute: give it relative to the skill")
    if any(unicodedata.category(char).startswith("C") for char in path):
        raise UnsafePath(path, f"path {path!r} contains control or invisible characters")
    normalised = unicodedata.normalize("NFC", path)
    for segment in normalised.split("/"):
        problem = _segment_problem(segment)
        if problem:
            raise UnsafePath(path, f"path {path!r}: {problem}")
    return normalised


def _segment_problem(segment: str) -> str | None:
    if segment in {"", ".", ".."}:
        return "it has an empty, '.' or '..' segment: paths must stay inside the skill"
    folded = unicodedata.normalize("NFKC", segment)
    if "/" in folded or "\\" in folded or any(c in _SEPARATOR_LOOKALIKES for c in segment):
        return f"the name {segment!r} contains a character that looks like a path separator"
    if all(c in _DOT_LOOKALIKES for c in folded.strip()):
        return f"the name {segment!r} looks like '.' or '..'"
    if _PERCENT_ESCAPE.search(segment):
        return f"the name {segment!r} contains a percent-encoded character: give it decoded"
    if segment.startswith("~") or _SHORT_NAME.search(segment):
        return (
            f"the name {segment!r} uses '~', which means a home directory to a shell and a "
            "short name to Windows"
        )
    if segment != segment.strip(" ") or segment.endswith("."):
        return f"the name {segment!r} starts or ends with a space or ends with a dot"
    if _WINDOWS_FORBIDDEN & set(segment):
        return f'the name {segment!r} contains one of < > : " | ? *, not allowed on Windows'
    if segment.split(".", 1)[0].rstrip(" ").casefold() in WINDOWS_RESERVED_NAMES:
        return f"the name {segment!r} is a device name reserved by Windows"
    if segment.casefold() in VCS_CONTROL_NAMES:
        return (
            f"{segment!r} is a version-control folder: its files configure commands that run "
            "in the installed skill, so it cannot be part of one"
        )
    return None


def check_bundle_paths(paths: Iterable[str]) -> None:
    """Refuse a set of (already NFC) paths that would collide on a case-insensitive or
    normalising filesystem, or where a file and a folder share a name."""
    seen: dict[str, str] = {}
    folders: dict[str, str] = {}
    ordered = sorted(paths)
    for path in ordered:
        key = _collision_key(path)
        if key in seen:
            raise UnsafePath(
                path,
                f"paths {seen[key]!r} and {path!r} differ only in letter case or Unicode "
                "form: they would be one file on many filesystems",
            )
        seen[key] = path
        parts = key.split("/")
        for depth in range(1, len(parts)):
            folders.setdefault("/".join(parts[:depth]), path)
    for key, path in seen.items():
        if key in folders:
            raise UnsafePath(
                path,
                f"{path!r} is a file, but {folders[key]!r} uses the same name as a folder",
            )


def _collision_key(path: str) -> str:
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", path).casefold())
