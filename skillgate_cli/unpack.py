"""Unpacking an archive as hostile bytes, even from a trusted registry.

Nothing is extracted until every entry has been checked: only regular files (no links, devices,
FIFOs), relative POSIX paths without ``..``, empty or ``.`` segments, backslashes, drive letters,
colons, control characters, Windows device names or trailing dots and spaces; no two paths that
collide on a case-insensitive file system, no file where another needs a folder; bounded sizes
(the gzip stream is inflated with a cap, so a compression bomb stops at the cap). Files are then
written with ``O_EXCL | O_NOFOLLOW`` into a folder this process just created and nobody else
writes to.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tarfile
import unicodedata
import zlib
from pathlib import Path, PurePosixPath

MAX_UNPACKED_BYTES = 64 * 1024 * 1024
MAX_ENTRIES = 10_000
MAX_PATH_CHARS = 1024
MAX_SEGMENT_BYTES = 255
_DEVICES = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {f"{port}{n}" for port in ("COM", "LPT") for n in "123456789¹²³"}
)
_DRIVE = re.compile(r"^[A-Za-z]:")


class UnsafeArchive(Exception):
    """The archive holds something that will not be written to disk; nothing was."""


def inflate(gzipped: bytes, limit: int = MAX_UNPACKED_BYTES) -> bytes:
    """The tar inside a single-member gzip stream, refusing more than ``limit`` bytes."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        tar = inflater.decompress(gzipped, limit + 1)
    except zlib.error as error:
        raise UnsafeArchive(f"the archive is not valid gzip ({error})") from error
    if len(tar) > limit or inflater.unconsumed_tail:
        raise UnsafeArchive(f"the archive unpacks to more than {limit} bytes")
    if not inflater.eof:
        raise UnsafeArchive("the archive is truncated")
    if inflater.unused_data:
        raise UnsafeArchive("the archive has data after its end")
    return tar


def read_files(gzipped: bytes) -> dict[str, bytes]:
    """Every file of the archive by path, after checking every entry (UnsafeArchive if any
    entry is unsafe)."""
    try:
        with tarfile.open(fileobj=io.BytesIO(inflate(gzipped)), mode="r:") as tar:
            members = tar.getmembers()
            if len(members) > MAX_ENTRIES:
                raise UnsafeArchive(f"the archive has more than {MAX_ENTRIES} entries")
            files: dict[str, bytes] = {}
            total = 0
            for member in members:
                path = check_path(member.name)
                if member.isdir():
                    continue
                if not member.isreg() or member.issparse():
                    raise UnsafeArchive(f"{member.name!r} is {_kind(member)}: only files install")
                total += member.size
                if total > MAX_UNPACKED_BYTES:
                    raise UnsafeArchive(f"the files add up to more than {MAX_UNPACKED_BYTES} bytes")
                content = tar.extractfile(member)
                if content is None:
                    raise UnsafeArchive(f"{member.name!r} has no content")
                files[path] = content.read()
    except tarfile.TarError as error:
        raise UnsafeArchive(f"the archive is not a valid tar file ({error})") from error
    check_collisions(files)
    return files


def check_path(name: str) -> str:
    """``name`` as a safe relative POSIX path, or UnsafeArchive saying what is wrong."""
    shown = repr(name)
    if not name or len(name) > MAX_PATH_CHARS:
        raise UnsafeArchive(f"entry {shown} has an empty or over-long path")
    if any(ord(char) < 32 or ord(char) == 127 for char in name):
        raise UnsafeArchive(f"entry {shown} has control characters in its path")
    if "\\" in name:
        raise UnsafeArchive(f"entry {shown} has a backslash in its path")
    if name.startswith("/") or _DRIVE.match(name):
        raise UnsafeArchive(f"entry {shown} has an absolute path")
    segments = name.removesuffix("/").split("/")
    for segment in segments:
        if segment in {"", ".", ".."}:
            raise UnsafeArchive(f"entry {shown} has an empty, '.' or '..' segment in its path")
        if len(segment.encode("utf-8", "surrogateescape")) > MAX_SEGMENT_BYTES:
            raise UnsafeArchive(f"entry {shown} has a name longer than {MAX_SEGMENT_BYTES} bytes")
        if ":" in segment or segment.endswith((".", " ")):
            raise UnsafeArchive(f"entry {shown} has a name Windows would misread")
        if segment.split(".")[0].strip().upper() in _DEVICES:
            raise UnsafeArchive(f"entry {shown} is named after a device")
    return str(PurePosixPath(*segments))


def check_collisions(files: dict[str, bytes]) -> None:
    """No two paths that are the same file on a case-insensitive or normalising file system,
    and no file standing where another entry needs a folder."""
    seen: dict[str, str] = {}
    for path in files:
        key = unicodedata.normalize("NFC", path).casefold()
        if key in seen:
            raise UnsafeArchive(f"entries {seen[key]!r} and {path!r} would be the same file")
        seen[key] = path
    for path in files:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            folder = unicodedata.normalize("NFC", "/".join(parts[:depth])).casefold()
            if folder in seen:
                raise UnsafeArchive(f"entry {path!r} needs {seen[folder]!r} to be a folder")


def write_files(root: Path, files: dict[str, bytes]) -> None:
    """Write checked files under ``root``, a folder this process created empty."""
    real_root = os.path.realpath(root)
    for path, content in files.items():
        target = root.joinpath(*path.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        if os.path.commonpath([real_root, os.path.realpath(target.parent)]) != real_root:
            raise UnsafeArchive(f"entry {path!r} would be written outside the destination")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        descriptor = os.open(target, flags, 0o644)
        with os.fdopen(descriptor, "wb") as out:
            out.write(content)


def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def _kind(member: tarfile.TarInfo) -> str:
    if member.issparse():
        return "a sparse file"
    if member.issym():
        return "a symbolic link"
    if member.islnk():
        return "a hard link"
    if member.ischr() or member.isblk():
        return "a device"
    if member.isfifo():
        return "a FIFO"
    return f"an entry of type {member.type!r}"
