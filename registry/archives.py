"""The archive consumers install from: a deterministic ``.tar.gz`` of a bundle.

The same bundle always gives the same bytes, so the sha256 the API publishes is a fact about
the bundle that any client can check::

    entries   the bundle's regular files only, sorted by path (no directories, no links), at the
              archive's top level (``SKILL.md``, ``scripts/x.py``), in POSIX pax format
    metadata  mode 0644 (bundles carry no modes), mtime 2000-01-01T00:00:00Z, uid/gid 0, no
              user or group names
    gzip      level 9, header mtime 0, no file name

Nothing is stored: the archive and its sha256 are computed from the bundle when asked (the
digest is cached per process). Both come from the same code on the same server, so they agree;
the bytes stay the same for as long as the server's zlib compresses the same way.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from dataclasses import dataclass

from registry.bundles import Bundle

MEDIA_TYPE = "application/gzip"
SUFFIX = ".tar.gz"
FILE_MODE = 0o644
MTIME = 946_684_800  # 2000-01-01T00:00:00Z: fixed, and not "implausibly old" to tar
COMPRESS_LEVEL = 9


@dataclass(frozen=True)
class Archive:
    content: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


def build(bundle: Bundle) -> Archive:
    """The bundle as a deterministic ``.tar.gz``."""
    tar_bytes = io.BytesIO()
    with tarfile.open(fileobj=tar_bytes, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for file in bundle.files:
            entry = tarfile.TarInfo(file.path)
            entry.type = tarfile.REGTYPE
            entry.size = file.size
            entry.mode = FILE_MODE
            entry.mtime = MTIME
            entry.uid = entry.gid = 0
            entry.uname = entry.gname = ""
            tar.addfile(entry, io.BytesIO(file.content))
    compressed = io.BytesIO()
    with gzip.GzipFile(
        filename="", mode="wb", fileobj=compressed, compresslevel=COMPRESS_LEVEL, mtime=0
    ) as gz:
        gz.write(tar_bytes.getvalue())
    return Archive(compressed.getvalue())


def sha256_of(bundle: Bundle) -> str:
    """The sha256 of the bundle's archive, remembered per bundle (bundles never change)."""
    digest = _digests.get(bundle.sha256)
    if digest is None:
        digest = build(bundle).sha256
        if len(_digests) >= _REMEMBERED:
            _digests.clear()
        _digests[bundle.sha256] = digest
    return digest


_REMEMBERED = 4096
_digests: dict[str, str] = {}
