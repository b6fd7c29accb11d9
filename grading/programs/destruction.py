"""What a destructive operation destroys, when it is something the user cannot get back.

Shared by the Python and shell analyses, which fold the operand of a delete (``rmtree``,
``unlink``, ``rm -rf``, ``find … -delete``) into a path the way the program computes it
(``Path.home() / x``, ``$HOME``, ``Path(__file__).parents[3]``). A delete matters when its
target is the home folder or a folder directly in it, a version-control folder, backups or
snapshots, a credential store, or a place outside the skill's own folder: the skill's own
cache, build output or temporary files do not. Dropping every schema or a database, and the
git operations that throw history away (an orphan branch force-pushed, remote branches or tags
deleted, the reflog expired and pruned), are the same loss written in SQL and git.
"""

from __future__ import annotations

import re

from grading import linear
from grading.programs import sensitive

HOME = "place:home"
"""Label of a value computed from the home folder (``Path.home()``, ``$HOME``, ``~``)."""
OUTSIDE = "place:outside"
"""Label of a value computed to be above the skill's own folder (``parents[2]``, ``../..``)."""
OUTSIDE_PREFIX = "@outside"
"""Folded text of a path above the skill's folder (its real location is unknown)."""

_VALUABLE_PART = re.compile(
    r"(?i)^(?:\.git|\.hg|\.svn|backups?|\w*[-_.]?backups?[-_.]?\w*|snapshots?|\.snapshots?"
    r"|time ?machine|\.?restic|\.?borg|[\w.-]+\.(?:bak|backup|dump|sql\.gz|tar\.gz))$"
)
_DISPOSABLE_IN_HOME = frozenset(
    {".cache", "tmp", ".tmp", "temp", ".npm", ".pnpm-store", ".yarn", ".gradle", ".m2",
     "node_modules", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "dist", "build"}
)  # fmt: skip
"""Folders in the home folder whose contents are regenerated on demand (a cache, not data)."""


def valuable(path: str | None, labels: frozenset[str] = frozenset()) -> str | None:
    """Why deleting ``path`` (as folded; ``labels`` say where it was computed from) loses the
    user's data, or None when it does not (a cache, the skill's own folder, unknown)."""
    if path is not None:
        parts = [p for p in re.split(r"[/\\]+", path.strip()) if p not in ("", ".")]
        if any(_VALUABLE_PART.match(p) for p in parts if p not in ("~", OUTSIDE_PREFIX)):
            return "a version-control folder or backups"
        if sensitive.is_sensitive_path(path):
            return "a credential store"
        if parts and parts[0] == "~":
            rest = parts[1:]
            if not rest or rest == ["*"]:
                return "the home folder"
            if len(rest) == 1 and rest[0] not in _DISPOSABLE_IN_HOME:
                return "a folder of the home folder"
            return None
        if parts and parts[0] == OUTSIDE_PREFIX:
            return "a folder outside the skill"
        if path.strip() in ("/", "/*"):
            return "the whole disk"
        if parts[:2] == ["..", ".."]:
            return "a folder outside the skill"
        if parts and parts[0] == ".." and parts[1:] in ([], ["*"]):
            # the whole folder above the one the script runs in: the user's project and every
            # folder beside it, not a named output the script made there (``../build``)
            return "everything in the folder above the working folder"
        return None
    if OUTSIDE in labels:
        return "a folder outside the skill"
    if HOME in labels:
        return "a folder in the home folder"
    return None


_DOCUMENT_TYPES = frozenset(
    {"ics", "ical", "icalendar", "icbu", "vcf", "vcard", "eml", "mbox", "msg", "doc", "docx",
     "odt", "rtf", "xls", "xlsx", "ods", "ppt", "pptx", "odp", "pages", "numbers", "key",
     "heic", "dng", "cr2", "nef"}
)  # fmt: skip
"""Kinds of file a person makes and keeps (calendars, contacts, mail, office documents, camera
photos): no tool regenerates them, unlike logs, caches, bytecode or exported charts."""

_EVERYWHERE = frozenset({".", "./", "~", "~/", "$HOME", "${HOME}", "..", "../"})


def documents(start: str, names: list[str]) -> str | None:
    """Why ``find START -name '*.ics' … -delete`` loses the user's data: every file of a kind a
    person keeps, below the working or home folder (not one folder the skill made), or None."""
    if start.strip() not in _EVERYWHERE:
        return None
    kinds = sorted({n.rsplit(".", 1)[-1].lower() for n in names if "." in n} & _DOCUMENT_TYPES)
    return f"every .{', .'.join(kinds)} file below {start.strip()}" if kinds else None


SQL_DESTRUCTION = linear.compile(
    r"(?i)\bdrop\s+(?:schema|database|owned\s+by)\b|\bpg_drop_replication_slot\b"
    r"|\bdropdb\b|\bdrop\s+table\s[^;]{0,80}\{\}"
)
"""SQL that throws away a schema, a database or every table of a computed list."""


def destroys_history(commands: list[list[str]]) -> str | None:
    """Why the git commands of one script (each a list of words after ``git``) throw the
    user's history away, or None: an orphan branch or a branch deleted then force-pushed,
    remote branches or tags deleted, the reflog expired together with a prune."""
    orphan = any("--orphan" in words for words in commands if words and words[0] in _SWITCH)
    forced = any(_force_push(words) for words in commands)
    deleted_branch = any(
        words[:1] == ["branch"] and ("-D" in words or "--delete" in words) for words in commands
    )
    remote_delete = any(
        words[:1] == ["push"]
        and ("--delete" in words or "-d" in words or any(w.startswith(":") for w in words[1:]))
        for words in commands
    )
    expired = any(words[:2] == ["reflog", "expire"] for words in commands)
    pruned = any(
        words[:1] == ["gc"] and any(w.startswith("--prune") for w in words) for words in commands
    )
    if orphan and forced:
        return "an orphan branch force-pushed over the remote history"
    if deleted_branch and forced:
        return "a branch deleted and force-pushed"
    if remote_delete:
        return "branches or tags deleted on the remote"
    if expired and pruned:
        return "the reflog expired and pruned: rewritten history cannot be recovered"
    return None


_SWITCH = frozenset({"checkout", "switch"})


def _force_push(words: list[str]) -> bool:
    if words[:1] != ["push"]:
        return False
    flags = words[1:]
    if any(w.startswith("--force-with-lease") or w == "--force-if-includes" for w in flags):
        return False
    return any(
        w in ("-f", "--force") or (w.startswith("-") and not w.startswith("--") and "f" in w)
        for w in flags
    ) or any(w.startswith("+") for w in flags)
