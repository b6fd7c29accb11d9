"""The installer treats archive bytes as hostile: every unsafe entry is refused by name before
anything is written."""

from __future__ import annotations

import gzip
import tarfile

import pytest

from skillgate_cli.unpack import UnsafeArchive, inflate, read_files, write_files
from tests.support.fake_registry import Entry, tar_gz


def test_a_plain_archive_reads_as_its_files():
    archive = tar_gz([Entry("SKILL.md", b"hello"), Entry("scripts/a.py", b"print(1)")])
    assert read_files(archive) == {"SKILL.md": b"hello", "scripts/a.py": b"print(1)"}


@pytest.mark.parametrize(
    ("entries", "says"),
    [
        ([Entry("../escape.txt", b"x")], "'..' segment"),
        ([Entry("scripts/../../escape.txt", b"x")], "'..' segment"),
        ([Entry("/etc/cron.d/evil", b"x")], "absolute path"),
        ([Entry("C:/Windows/evil", b"x")], "absolute path"),
        ([Entry("scripts\\..\\evil", b"x")], "backslash"),
        ([Entry("./SKILL.md", b"x")], "'.' or '..' segment"),
        ([Entry("a//b", b"x")], "empty"),
        ([Entry("bad\x1bname", b"x")], "control characters"),
        ([Entry("NUL.txt", b"x")], "named after a device"),
        ([Entry("docs/com1", b"x")], "named after a device"),
        ([Entry("trailing.", b"x")], "Windows would misread"),
        ([Entry("file.txt:stream", b"x")], "Windows would misread"),
        ([Entry("link", kind=tarfile.SYMTYPE, target="/etc/passwd")], "a symbolic link"),
        (
            [Entry("SKILL.md", b"x"), Entry("hard", kind=tarfile.LNKTYPE, target="SKILL.md")],
            "a hard link",
        ),
        ([Entry("tty", kind=tarfile.CHRTYPE)], "a device"),
        ([Entry("disk", kind=tarfile.BLKTYPE)], "a device"),
        ([Entry("pipe", kind=tarfile.FIFOTYPE)], "a FIFO"),
        ([Entry("README.md", b"a"), Entry("readme.md", b"b")], "would be the same file"),
        ([Entry("scripts", b"a"), Entry("scripts/run.sh", b"b")], "needs 'scripts' to be a folder"),
        ([Entry("x" * 256, b"x")], "longer than 255 bytes"),
    ],
)
def test_unsafe_entries_are_refused_by_name(entries, says):
    with pytest.raises(UnsafeArchive, match=says):
        read_files(tar_gz(entries))


def test_a_compression_bomb_stops_at_the_cap():
    bomb = gzip.compress(b"\0" * 20_000, mtime=0)
    with pytest.raises(UnsafeArchive, match="unpacks to more than 10000 bytes"):
        inflate(bomb, limit=10_000)


def test_a_real_bomb_is_refused_without_being_inflated_whole():
    bomb = tar_gz([Entry("zeros", b"\0" * (65 * 1024 * 1024))])
    assert len(bomb) < 200_000
    with pytest.raises(UnsafeArchive, match="unpacks to more than"):
        read_files(bomb)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"not gzip at all", "not valid gzip"),
        (gzip.compress(b"not a tar file" * 100, mtime=0), "not a valid tar file"),
        (tar_gz([Entry("a", b"x")])[:-10], "truncated"),
        (tar_gz([Entry("a", b"x")]) + b"trailing", "data after its end"),
    ],
)
def test_garbage_is_refused(data, says):
    with pytest.raises(UnsafeArchive, match=says):
        read_files(data)


def test_files_are_written_only_inside_the_root(tmp_path):
    write_files(tmp_path, {"SKILL.md": b"a", "scripts/deep/run.sh": b"b"})
    assert (tmp_path / "scripts/deep/run.sh").read_bytes() == b"b"
    with pytest.raises(FileExistsError):
        write_files(tmp_path, {"SKILL.md": b"again"})
