"""The archive is a pure function of the bundle: same files, same bytes, whatever order they
came in; sorted entries, fixed metadata; and the installer's own checks accept it."""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile

from registry import archives
from registry.bundles import Bundle, BundleFile
from skillgate_cli.unpack import read_files

FILES = {
    "SKILL.md": "---\nname: x\ndescription: y\n---\nBody.\n",
    "scripts/run.sh": "#!/bin/sh\necho hi\n",
    "refs/" + "deep/" * 30 + "long-path.md": "a path over tar's 100 characters\n",
    "docs/café.md": "non-ASCII path\n",
}


def bundle(files: dict[str, str] = FILES, reverse: bool = False) -> Bundle:
    items = sorted(files.items(), reverse=reverse)
    return Bundle(BundleFile(path, text.encode()) for path, text in items)


def entries(archive: archives.Archive) -> list[tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(archive.content), mode="r:gz") as tar:
        return tar.getmembers()


def test_the_same_bundle_gives_the_same_bytes_every_time():
    first, second = archives.build(bundle()), archives.build(bundle(reverse=True))
    assert first.content == second.content
    assert first.sha256 == hashlib.sha256(second.content).hexdigest()


def test_different_files_give_a_different_archive():
    changed = {**FILES, "SKILL.md": FILES["SKILL.md"] + "More.\n"}
    assert archives.build(bundle(changed)).sha256 != archives.build(bundle()).sha256


def test_entries_are_the_files_sorted_by_path_with_fixed_metadata():
    members = entries(archives.build(bundle()))
    assert [m.name for m in members] == sorted(FILES)
    for member in members:
        assert member.isreg()
        assert (member.mode, member.mtime, member.uid, member.gid) == (0o644, 946_684_800, 0, 0)
        assert (member.uname, member.gname) == ("", "")


def test_the_gzip_header_carries_no_time_and_no_name():
    content = archives.build(bundle()).content
    assert content[:3] == b"\x1f\x8b\x08"
    flags, mtime = content[3], content[4:8]
    assert flags == 0, "no FNAME, FCOMMENT or FEXTRA"
    assert mtime == b"\0\0\0\0"


def test_the_archive_holds_exactly_the_bundles_bytes():
    unpacked = {}
    with tarfile.open(fileobj=io.BytesIO(archives.build(bundle()).content), mode="r:gz") as tar:
        for member in tar.getmembers():
            extracted = tar.extractfile(member)
            assert extracted is not None, f"{member.name} is not a regular file"
            unpacked[member.name] = extracted.read()
    assert unpacked == {path: text.encode() for path, text in FILES.items()}
    assert gzip.decompress(archives.build(bundle()).content)[-1024:] == b"\0" * 1024


def test_the_installer_accepts_what_the_registry_builds():
    assert read_files(archives.build(bundle()).content) == {
        path: text.encode() for path, text in FILES.items()
    }


def test_the_digest_is_remembered_per_bundle():
    first = bundle()
    assert archives.sha256_of(first) == archives.build(first).sha256
    assert archives.sha256_of(bundle(reverse=True)) == archives.build(first).sha256
