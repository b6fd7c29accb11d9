"""``install`` and ``verify``: what they check, in what order, and how they end.

install: resolve the version (the registry's latest when none is named: never yanked,
quarantined or a pre-release), take the registry's keys as this client trusts them
(``skillgate_cli.signing``), check the signed verdict and the signed, current status of that
version (refuse a quarantined one), download its archive and compare its sha256 with the
*signed* one, unpack it as hostile bytes in memory, check that the files are the signed bundle
and the registry's file list, write them into a fresh folder inside DEST with the record
``.skillgate.json`` (which keeps the signed verdict), and only then move the folder to DEST/NAME
(replacing an existing one only with --force). Nothing is written before every check passed.

verify: read ``.skillgate.json``, check offline that the recorded verdict is signed by a pinned
key and that the folder's files are its bundle; then (unless --offline) ask the registry for the
version's signed status now.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import IntEnum
from pathlib import Path
from typing import Any, TextIO

from skillgate_cli import limits, signing, unpack
from skillgate_cli.registry import Quarantined, Registry, RegistryError

MARKER = ".skillgate.json"
_SPEC = re.compile(
    r"(?P<owner>[A-Za-z0-9][A-Za-z0-9._-]{0,99})/(?P<name>[a-z0-9-]{1,64})"
    r"(?:@(?P<version>[0-9A-Za-z.+-]{1,64}))?"
)


class Exit(IntEnum):
    OK = 0
    FAILED = 1  # registry unreachable, not found, checksum mismatch, unsafe archive, folder exists
    USAGE = 2
    CHANGED = 3  # verify: files were changed, added or removed locally
    YANKED = 4  # verify: the version was yanked by its owner since
    QUARANTINED = 5  # install refused / verify: the version is quarantined


class Failure(Exception):
    """Ends the command with ``code`` after printing the message."""

    def __init__(self, message: str, code: Exit = Exit.FAILED) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Spec:
    owner: str
    name: str
    version: str | None

    @classmethod
    def parse(cls, text: str) -> Spec:
        match = _SPEC.fullmatch(text)
        if match is None:
            raise Failure(
                f"{text!r} is not OWNER/NAME[@VERSION] (NAME: lowercase letters, digits and '-')",
                Exit.USAGE,
            )
        return cls(match["owner"].lower(), match["name"], match["version"])


def install(
    spec: Spec,
    dest: Path,
    force: bool,
    registry: Registry,
    out: TextIO,
    notices: TextIO,
    trust_key: str | None = None,
) -> Exit:
    target = dest / spec.name
    if os.path.lexists(target) and not force:
        raise Failure(f"{target} already exists; pass --force to replace it")
    version = spec.version or _latest(registry, spec)
    ref = f"{spec.owner}/{spec.name}@{version}"
    detail = _version(registry, spec.owner, spec.name, version)
    keys = _trusted_keys(registry, notices, trust_key)
    verdict, status = _signed(detail, keys, ref)
    if status == "quarantined":
        raise Failure(_quarantine_message(ref, detail.get("advisory")), Exit.QUARANTINED)
    if status == "yanked":
        reason = detail.get("status_reason") or "no reason given"
        out.write(f"warning: {ref} was yanked by its owner ({reason}); installing it anyway\n")
    try:
        archive = registry.archive(spec.owner, spec.name, version)
    except Quarantined as refused:
        raise Failure(_quarantine_message(ref, refused.advisory), Exit.QUARANTINED) from refused
    except RegistryError as error:
        raise Failure(str(error)) from error
    if unpack.sha256(archive) != verdict.archive_sha256:
        raise Failure(
            f"the archive of {ref} is not the one the registry signed "
            f"(sha256 {verdict.archive_sha256}); nothing was installed"
        )
    try:
        files = unpack.read_files(archive)
    except unpack.UnsafeArchive as unsafe:
        raise Failure(f"refusing the archive of {ref}: {unsafe}; nothing was installed") from unsafe
    if MARKER in files:
        raise Failure(f"the archive of {ref} contains {MARKER}, which the installer reserves")
    if signing.bundle_sha256(files) != verdict.predicate.get("bundle_sha256"):
        raise Failure(f"the files of {ref} are not the bundle the registry signed")
    expected = _published_files(detail)
    actual = {path: unpack.sha256(content) for path, content in files.items()}
    if actual != expected:
        raise Failure(
            f"the archive of {ref} does not hold the files the registry lists; nothing was "
            "installed"
        )
    record = _record(registry, spec, version, verdict, detail["attestations"]["verdict"])
    _place(dest, spec.name, force, files, record)
    out.write(
        f"installed {ref} into {target} (archive sha256 {verdict.archive_sha256}, "
        f"signature verified; {_publisher(verdict)})\n"
    )
    return Exit.OK


def verify(
    folder: Path, registry_url: str | None, out: TextIO, notices: TextIO, offline: bool = False
) -> Exit:
    record = _read_record(folder)
    owner, name, version = record["owner"], record["name"], record["version"]
    ref = f"{owner}/{name}@{version}"
    url = registry_url or record["registry"]
    pinned = signing.pinned_keys(record["registry"])
    try:
        verdict = signing.statement(record.get("verdict"), pinned, signing.VERDICT_PREDICATE, ref)
    except signing.SignatureError as error:
        raise Failure(f"{folder}: the recorded verdict does not verify: {error}") from error
    local, oddities = _local_files(folder)
    signed_bundle = verdict.predicate.get("bundle_sha256")
    if (
        signing.bundle_sha256({path: (folder / path).read_bytes() for path in local})
        == signed_bundle
        and not oddities
    ):
        out.write(f"{ref}: the files in {folder} are the bundle the registry signed\n")
        differs = False
    else:
        differs = True
    if offline:
        if differs:
            out.write(f"{ref}: the files in {folder} differ from the signed bundle\n")
            return Exit.CHANGED
        out.write(f"{ref}: verified offline, {len(local)} files unchanged\n")
        return Exit.OK
    registry = Registry(url)
    detail = _version(registry, owner, name, version)
    keys = _trusted_keys(registry, notices, None)
    _, status = _signed(detail, keys, ref, archive_sha256=verdict.archive_sha256)
    expected = _published_files(detail)
    changed = sorted(p for p in expected if p in local and local[p] != expected[p])
    missing = sorted(p for p in expected if p not in local)
    added = sorted(p for p in local if p not in expected)
    for label, paths in (("changed", changed), ("missing", missing), ("added", added)):
        for path in paths:
            out.write(f"{label}: {path}\n")
    for oddity in oddities:
        out.write(f"not a regular file: {oddity}\n")
    if status == "quarantined":
        out.write(_quarantine_message(ref, detail.get("advisory")) + "\n")
        return Exit.QUARANTINED
    if differs or changed or missing or added or oddities:
        out.write(f"{ref}: the files in {folder} differ from the registry's\n")
        return Exit.CHANGED
    if status == "yanked":
        reason = detail.get("status_reason") or "no reason given"
        out.write(f"{ref} was yanked by its owner since: {reason}\n")
        return Exit.YANKED
    out.write(f"{ref}: verified, {len(expected)} files unchanged, {status}\n")
    return Exit.OK


def _publisher(verdict: signing.Statement) -> str:
    """Who publishes in the skill's namespace, as signed: an account, or a git owner on a host."""
    namespace = verdict.predicate.get("namespace")
    if not isinstance(namespace, dict):
        return "publisher not stated"
    owner = namespace.get("owner")
    if namespace.get("kind") == "git":
        return f"{owner}/ is the git owner {owner} on {namespace.get('host')}"
    return f"{owner}/ is the registry account {owner}"


def _trusted_keys(registry: Registry, notices: TextIO, trust_key: str | None) -> signing.Keys:
    try:
        return signing.trusted_keys(registry.url, registry.signing_keys, notices, trust_key)
    except signing.SignatureError as error:
        raise Failure(f"{error}; nothing was installed") from error
    except RegistryError as error:
        raise Failure(
            f"{error}: the registry serves no signing keys, so nothing it sends can be checked"
        ) from error


def _signed(
    detail: dict[str, Any], keys: signing.Keys, ref: str, archive_sha256: str | None = None
) -> tuple[signing.Statement, str]:
    """The signed verdict and the signed current status of ``ref``, both about one archive."""
    envelopes = detail.get("attestations")
    if not isinstance(envelopes, dict):
        raise Failure(f"the registry sent no signed verdict for {ref}; refusing it")
    try:
        verdict = signing.statement(envelopes.get("verdict"), keys, signing.VERDICT_PREDICATE, ref)
        status = signing.statement(envelopes.get("status"), keys, signing.STATUS_PREDICATE, ref)
        current = signing.fresh_status(status)
    except signing.SignatureError as error:
        raise Failure(f"{ref}: {error}; refusing it") from error
    if status.archive_sha256 != verdict.archive_sha256 or (
        archive_sha256 is not None and verdict.archive_sha256 != archive_sha256
    ):
        raise Failure(f"{ref}: the signed statements are about different archives; refusing it")
    return verdict, current


def _latest(registry: Registry, spec: Spec) -> str:
    try:
        skill = registry.skill(spec.owner, spec.name)
    except RegistryError as error:
        raise Failure(str(error)) from error
    latest = skill.get("latest_version")
    if not latest:
        raise Failure(
            f"{spec.owner}/{spec.name} has no installable version (all are yanked); name one "
            "with @VERSION to install it anyway"
        )
    return str(latest)


def _version(registry: Registry, owner: str, name: str, version: str) -> dict[str, Any]:
    try:
        return registry.version(owner, name, version)
    except RegistryError as error:
        raise Failure(str(error)) from error


def _published_files(detail: dict[str, Any]) -> dict[str, str]:
    files = detail.get("files")
    if not isinstance(files, list) or not all(isinstance(f, dict) for f in files):
        raise Failure("the registry's answer has no file list")
    return {str(f.get("path")): str(f.get("sha256")) for f in files}


def _quarantine_message(ref: str, advisory: dict[str, Any] | None) -> str:
    message = f"{ref} is quarantined: do not use it"
    if advisory:
        message += f"\n  why: {advisory.get('reason')}\n  what to do: "
        message += str(advisory.get("action_required"))
    return message


def _record(
    registry: Registry,
    spec: Spec,
    version: str,
    verdict: signing.Statement,
    envelope: dict[str, Any],
) -> bytes:
    record = {
        "registry": registry.url,
        "owner": spec.owner,
        "name": spec.name,
        "version": version,
        "bundle_sha256": verdict.predicate.get("bundle_sha256"),
        "archive_sha256": verdict.archive_sha256,
        "verdict": envelope,
        "installed_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    return (json.dumps(record, indent=2) + "\n").encode("utf-8")


def _place(dest: Path, name: str, force: bool, files: dict[str, bytes], record: bytes) -> None:
    """Unpack into a fresh folder inside ``dest``, then swap it in as ``dest/name``."""
    try:
        dest.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".skillgate", dir=dest))
    except OSError as error:
        raise Failure(f"cannot write to {dest}: {error}") from error
    target = dest / name
    try:
        unpack.write_files(staging, {**files, MARKER: record})
        if os.path.lexists(target):
            if not force:
                raise Failure(f"{target} already exists; pass --force to replace it")
            old = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".replaced", dir=dest))
            os.rename(target, old / name)
            try:
                os.rename(staging, target)
            except OSError:
                os.rename(old / name, target)
                raise
            shutil.rmtree(old)
        else:
            os.rename(staging, target)
    except unpack.UnsafeArchive as unsafe:
        raise Failure(f"refusing the archive: {unsafe}; nothing was installed") from unsafe
    except OSError as error:
        raise Failure(f"cannot install into {target}: {error}") from error
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _read_record(folder: Path) -> dict[str, str]:
    try:
        record = limits.loads(limits.read_file(folder / MARKER), str(folder / MARKER))
    except FileNotFoundError as error:
        raise Failure(f"{folder} was not installed by skillgate (no {MARKER})") from error
    except (OSError, ValueError) as error:
        raise Failure(f"cannot read {folder / MARKER}: {error}") from error
    keys = ("registry", "owner", "name", "version", "bundle_sha256")
    if not isinstance(record, dict) or not all(isinstance(record.get(k), str) for k in keys):
        raise Failure(f"{folder / MARKER} is not a skillgate install record")
    return record


def _local_files(folder: Path) -> tuple[dict[str, str], list[str]]:
    """sha256 of every regular file under ``folder`` (links are never followed, only
    reported with anything else that is not a regular file)."""
    hashes: dict[str, str] = {}
    oddities: list[str] = []
    for directory, subdirectories, names in os.walk(folder):
        for entry in [*subdirectories, *names]:
            path = Path(directory, entry)
            relative = path.relative_to(folder).as_posix()
            if path.is_symlink():
                oddities.append(relative)
            elif entry in names and relative != MARKER:
                if path.is_file():
                    hashes[relative] = unpack.sha256(path.read_bytes())
                else:
                    oddities.append(relative)
    return hashes, sorted(oddities)
