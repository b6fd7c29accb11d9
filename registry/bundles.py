"""Skill bundles: an immutable set of files with one canonical, content-addressed sha256.

The sha256 is taken over the canonical file list, so the same files give the same id whatever
order they arrived in or where they came from::

    sha256( for each file, sorted by path:  path + "\\0" + sha256(content).hex + "\\n" )

Text files are UTF-8; anything else is kept as bytes (a git source may carry images), so a
scanner can report it without ever decoding it.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class BundleFile:
    path: str
    content: bytes

    @property
    def size(self) -> int:
        return len(self.content)

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()

    @cached_property
    def text(self) -> str | None:
        """The file as text, or None when it is not UTF-8 (a binary file)."""
        try:
            return self.content.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def to_json(self) -> dict[str, object]:
        entry: dict[str, object] = {"path": self.path, "size": self.size, "sha256": self.sha256}
        if self.text is not None:
            entry["text"] = self.text
        else:
            entry["base64"] = base64.b64encode(self.content).decode("ascii")
        return entry

    @classmethod
    def from_json(cls, entry: Mapping[str, object]) -> BundleFile:
        if "text" in entry:
            return cls(path=str(entry["path"]), content=str(entry["text"]).encode("utf-8"))
        return cls(path=str(entry["path"]), content=base64.b64decode(str(entry["base64"])))


class Bundle:
    """The files of one skill, sorted by path, with their canonical sha256."""

    def __init__(self, files: Iterable[BundleFile]) -> None:
        self.files: tuple[BundleFile, ...] = tuple(sorted(files, key=lambda f: f.path))
        paths = [f.path for f in self.files]
        if len(paths) != len(set(paths)):
            raise ValueError("a bundle cannot hold two files with the same path")

    @classmethod
    def from_texts(cls, files: Mapping[str, str]) -> Bundle:
        return cls(BundleFile(path, text.encode("utf-8")) for path, text in files.items())

    @classmethod
    def from_json(cls, entries: Iterable[Mapping[str, object]]) -> Bundle:
        return cls(BundleFile.from_json(entry) for entry in entries)

    def to_json(self) -> list[dict[str, object]]:
        return [f.to_json() for f in self.files]

    @cached_property
    def sha256(self) -> str:
        digest = hashlib.sha256()
        for f in self.files:
            digest.update(f.path.encode("utf-8") + b"\0" + f.sha256.encode("ascii") + b"\n")
        return digest.hexdigest()

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    def get(self, path: str) -> BundleFile | None:
        return next((f for f in self.files if f.path == path), None)

    def scan_input(self) -> dict[str, str | bytes]:
        """Path → text (or bytes for binary files): what the graders read."""
        return {f.path: (f.text if f.text is not None else f.content) for f in self.files}
