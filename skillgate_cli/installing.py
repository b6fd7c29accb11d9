"""Installing skills and keeping them: ``install``, ``verify``, ``list``, ``upgrade`` and
``uninstall``.

install: find the version first (the registry's latest when none is named: never yanked or
quarantined), refuse a quarantined one, then look at the folder (the same version already
there, unchanged, is done; another version of the same skill, unchanged, is replaced; anything
else needs --force), download the archive, compare its sha256 with the one the registry
publishes, unpack it as hostile bytes into a fresh folder inside DEST, compare every file with
the registry's file list, record what was installed in ``.skillgate.json`` (with each file's
sha256, so local changes are seen without asking the registry), and only then move the folder
to DEST/NAME.

verify: read ``.skillgate.json``, ask the registry about that version now, and compare the
folder's files with the registry's.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from skillgate_cli import places, unpack
from skillgate_cli.exits import Exit, Failure
from skillgate_cli.output import Printer, shown
from skillgate_cli.registry import Gone, NotFound, Registry, RegistryError
from skillgate_cli.specs import Spec

MARKER = ".skillgate.json"
MAX_RECORD_BYTES = 4 * 1024 * 1024


# --- finding the version -------------------------------------------------------------------


def resolve(registry: Registry, spec: Spec) -> tuple[str, dict[str, Any]]:
    """The version to install and its detail; failures that say what exists instead."""
    assert spec.owner is not None
    version = spec.version or _latest(registry, spec)
    try:
        return version, registry.version(spec.owner, spec.name, version)
    except NotFound:
        skill = skill_detail(registry, spec)
        raise Failure(
            f"{spec.owner}/{spec.name} has no version {shown(version)}; "
            f"its versions: {versions_in_words(skill)}"
        ) from None
    except RegistryError as error:
        raise Failure(str(error)) from error


def skill_detail(registry: Registry, spec: Spec) -> dict[str, Any]:
    """The skill's detail, or a Failure: every version quarantined (exit 5), no such skill, or
    a URL that is no Skillgate registry at all."""
    assert spec.owner is not None
    try:
        return registry.skill(spec.owner, spec.name)
    except Gone as gone:
        raise Failure(quarantined_skill_message(spec, gone.body), Exit.QUARANTINED) from gone
    except NotFound as missing:
        if not registry.is_a_registry():
            raise Failure(
                f"{registry.url} does not answer like a Skillgate registry (no endpoint list "
                "at /api/v1/): check --registry or SKILLGATE_URL"
            ) from missing
        raise Failure(
            f"{missing}; try `skillgate search {spec.name}` to find what is there"
        ) from missing
    except RegistryError as error:
        raise Failure(str(error)) from error


def _latest(registry: Registry, spec: Spec) -> str:
    skill = skill_detail(registry, spec)
    latest = skill.get("latest_version")
    if not latest:
        raise Failure(
            f"{spec.owner}/{spec.name} has no installable version: every version is yanked "
            f"({versions_in_words(skill)}); name one with @VERSION to install it anyway"
        )
    return str(latest)


def versions_in_words(skill: dict[str, Any]) -> str:
    versions = skill.get("versions")
    if not isinstance(versions, list) or not versions:
        return "none listed"
    return ", ".join(
        shown(f"{v.get('version')} ({v.get('status')})") for v in versions if isinstance(v, dict)
    )


def quarantined_skill_message(spec: Spec, body: dict[str, Any]) -> str:
    lines = [f"{spec.owner}/{spec.name} cannot be installed: every version is quarantined"]
    advisories = body.get("advisories")
    for advisory in advisories if isinstance(advisories, list) else []:
        if isinstance(advisory, dict):
            lines.append(f"  {shown(advisory.get('version'))}: {shown(advisory.get('reason'))}")
            lines.append(f"    what to do: {shown(advisory.get('action_required'))}")
    return "\n".join(lines)


def quarantine_message(ref: str, advisory: dict[str, Any] | None) -> str:
    message = f"{shown(ref)} is quarantined: do not use it"
    if advisory:
        message += f"\n  why: {shown(advisory.get('reason'))}\n  what to do: "
        message += shown(advisory.get("action_required"))
    return message


# --- install ---------------------------------------------------------------------------------


def install(
    spec: Spec,
    dest: Path,
    force: bool,
    registry: Registry,
    printer: Printer,
    folder_name: str | None = None,
) -> Exit:
    """Install into DEST/NAME (``folder_name`` instead of NAME: an upgrade keeps the folder
    the skill was installed in, whatever it was renamed to)."""
    spec = spec.qualified(registry)
    version, detail = resolve(registry, spec)
    ref = f"{spec.owner}/{spec.name}@{version}"
    if detail.get("status") == "quarantined":
        raise Failure(quarantine_message(ref, detail.get("advisory")), Exit.QUARANTINED)
    name = folder_name or spec.name
    target = dest / name
    previous = _in_the_way(target, spec, force)
    if previous is not None and previous.version == version:
        printer.say(f"{shown(ref)} is already installed in {target}, unchanged")
        return Exit.OK
    if detail.get("status") == "yanked":
        reason = detail.get("status_reason") or "no reason given"
        printer.say(
            f"warning: {shown(ref)} was yanked by its owner ({shown(reason)}); installing it anyway"
        )
    files = _download(registry, spec, version, ref, detail)
    record = _record(registry, spec, version, detail, files)
    _place(dest, name, force or previous is not None, files, record)
    places.remember(dest)
    if previous is not None:
        printer.say(f"replaced {shown(previous.ref)} with {shown(ref)} in {target}")
    else:
        published = detail.get("archive_sha256")
        printer.say(f"installed {shown(ref)} into {target} (archive sha256 {shown(published)})")
    return Exit.OK


def _in_the_way(target: Path, spec: Spec, force: bool) -> Installed | None:
    """What is at ``target``: None when nothing is (or --force clears it), the install of this
    skill when it is one without local changes (the same version is then already done, another
    one is replaced); anything else is a Failure that says what to do."""
    if not os.path.lexists(target):
        return None
    installed = installed_at(target)
    if installed is not None and (installed.owner, installed.name) == (spec.owner, spec.name):
        if not installed.local_changes():
            return installed
        if not force:
            raise Failure(
                f"{target} holds {shown(installed.ref)} with local changes (see `skillgate "
                "verify`); pass --force to replace it"
            )
    if force:
        return None
    raise Failure(f"{target} already exists; pass --force to replace it")


def _download(
    registry: Registry, spec: Spec, version: str, ref: str, detail: dict[str, Any]
) -> dict[str, bytes]:
    assert spec.owner is not None
    try:
        archive = registry.archive(spec.owner, spec.name, version)
    except Gone as refused:
        raise Failure(
            quarantine_message(ref, refused.body.get("advisory")), Exit.QUARANTINED
        ) from refused
    except RegistryError as error:
        raise Failure(str(error)) from error
    published = detail.get("archive_sha256")
    if unpack.sha256(archive) != published:
        raise Failure(
            f"the archive of {ref} does not match the sha256 the registry publishes "
            f"({shown(published)}); nothing was installed"
        )
    try:
        files = unpack.read_files(archive)
    except unpack.UnsafeArchive as unsafe:
        raise Failure(
            f"refusing the archive of {ref}: {shown(unsafe)}; nothing was installed"
        ) from unsafe
    if MARKER in files:
        raise Failure(f"the archive of {ref} contains {MARKER}, which the installer reserves")
    actual = {path: unpack.sha256(content) for path, content in files.items()}
    if actual != published_files(detail):
        raise Failure(
            f"the archive of {ref} does not hold the files the registry lists; nothing was "
            "installed"
        )
    return files


def published_files(detail: dict[str, Any]) -> dict[str, str]:
    files = detail.get("files")
    if not isinstance(files, list) or not all(isinstance(f, dict) for f in files):
        raise Failure("the registry's answer has no file list")
    return {str(f.get("path")): str(f.get("sha256")) for f in files}


def _record(
    registry: Registry, spec: Spec, version: str, detail: dict[str, Any], files: dict[str, bytes]
) -> bytes:
    record = {
        "registry": registry.url,
        "owner": spec.owner,
        "name": spec.name,
        "version": version,
        "bundle_sha256": detail.get("bundle_sha256"),
        "archive_sha256": detail.get("archive_sha256"),
        "installed_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "files": {path: unpack.sha256(content) for path, content in sorted(files.items())},
    }
    return (json.dumps(record, indent=2) + "\n").encode("utf-8")


def _folder_mode() -> int:
    """What a folder made by the user's shell would get (0755 under the usual umask 022)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o777 & ~mask


def _place(dest: Path, name: str, replace: bool, files: dict[str, bytes], record: bytes) -> None:
    """Unpack into a fresh folder inside ``dest``, then swap it in as ``dest/name``."""
    try:
        dest.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".skillgate", dir=dest))
    except OSError as error:
        raise Failure(f"cannot write to {dest}: {error}") from error
    target = dest / name
    try:
        unpack.write_files(staging, {**files, MARKER: record})
        mode = _folder_mode()
        for folder, _, _ in os.walk(staging):
            os.chmod(folder, mode)
        if os.path.lexists(target):
            if not replace:
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
        raise Failure(f"refusing the archive: {shown(unsafe)}; nothing was installed") from unsafe
    except OSError as error:
        raise Failure(f"cannot install into {target}: {error}") from error
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


# --- what is installed -------------------------------------------------------------------------


@dataclass(frozen=True)
class Installed:
    folder: Path
    record: dict[str, Any]

    @property
    def owner(self) -> str:
        return str(self.record["owner"])

    @property
    def name(self) -> str:
        return str(self.record["name"])

    @property
    def version(self) -> str:
        return str(self.record["version"])

    @property
    def registry(self) -> str:
        return str(self.record["registry"])

    @property
    def ref(self) -> str:
        return f"{self.owner}/{self.name}@{self.version}"

    def local_changes(self) -> list[str]:
        """What differs from what was installed ("changed: x", "added: y"…), read from the
        folder and the record alone; unknown (an empty list) for records without file hashes."""
        recorded = self.record.get("files")
        if not isinstance(recorded, dict):
            return []
        local, oddities = local_files(self.folder)
        return differences(recorded, local, oddities)


def differences(expected: dict[str, str], local: dict[str, str], oddities: list[str]) -> list[str]:
    changed = sorted(p for p in expected if p in local and local[p] != expected[p])
    missing = sorted(p for p in expected if p not in local)
    added = sorted(p for p in local if p not in expected)
    return [
        *(f"changed: {p}" for p in changed),
        *(f"missing: {p}" for p in missing),
        *(f"added: {p}" for p in added),
        *(f"not a regular file: {p}" for p in oddities),
    ]


def installed_at(folder: Path) -> Installed | None:
    """The skillgate install in ``folder``, or None when the folder is not one."""
    if folder.is_symlink() or not folder.is_dir():
        return None
    try:
        return Installed(folder, read_record(folder))
    except Failure:
        return None


def installs_in(folders: list[Path]) -> Iterator[Installed]:
    seen: set[Path] = set()
    for folder in folders:
        try:
            children = sorted(folder.iterdir())
        except OSError:
            continue
        for child in children:
            if child.name.startswith(".") or child.resolve() in seen:
                continue
            installed = installed_at(child)
            if installed is not None:
                seen.add(child.resolve())
                yield installed


def read_record(folder: Path) -> dict[str, Any]:
    try:
        with (folder / MARKER).open("rb") as handle:
            record = json.loads(handle.read(MAX_RECORD_BYTES))
    except FileNotFoundError as error:
        raise Failure(f"{folder} was not installed by skillgate (no {MARKER})") from error
    except (OSError, ValueError) as error:
        raise Failure(f"cannot read {folder / MARKER}: {error}") from error
    keys = ("registry", "owner", "name", "version", "bundle_sha256")
    if not isinstance(record, dict) or not all(isinstance(record.get(k), str) for k in keys):
        raise Failure(f"{folder / MARKER} is not a skillgate install record")
    return record


def local_files(folder: Path) -> tuple[dict[str, str], list[str]]:
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


# --- verify, list, upgrade, uninstall ----------------------------------------------------------


def verify(folder: Path, registry_url: str | None, printer: Printer) -> Exit:
    record = read_record(folder)
    registry = Registry(registry_url or record["registry"])
    owner, name, version = record["owner"], record["name"], record["version"]
    ref = f"{owner}/{name}@{version}"
    try:
        detail = registry.version(owner, name, version)
    except RegistryError as error:
        raise Failure(str(error)) from error
    if detail.get("bundle_sha256") != record.get("bundle_sha256"):
        raise Failure(f"the registry's {shown(ref)} is not the bundle that was installed here")
    expected = published_files(detail)
    local, oddities = local_files(folder)
    found = differences(expected, local, oddities)
    for line in found:
        printer.say(shown(line))
    status = detail.get("status")
    if status == "quarantined":
        printer.say(quarantine_message(ref, detail.get("advisory")))
        return Exit.QUARANTINED
    if found:
        printer.say(f"{shown(ref)}: the files in {folder} differ from the registry's")
        return Exit.CHANGED
    if status == "yanked":
        reason = detail.get("status_reason") or "no reason given"
        printer.say(f"{shown(ref)} was yanked by its owner since: {shown(reason)}")
        return Exit.YANKED
    printer.say(f"{shown(ref)}: verified, {len(expected)} files unchanged, {shown(status)}")
    return Exit.OK


def folders_to_look_in(dest: Path | None) -> list[Path]:
    return [dest] if dest is not None else places.remembered()


@dataclass(frozen=True)
class Standing:
    """An installed skill as the registry sees it now."""

    status: str
    latest: str | None
    advisory: dict[str, Any] | None
    problem: str = ""


def standing(installed: Installed) -> Standing:
    registry = Registry(installed.registry)
    try:
        detail = registry.version(installed.owner, installed.name, installed.version)
    except RegistryError as error:
        return Standing("unknown", None, None, str(error))
    latest = None
    try:
        latest = registry.skill(installed.owner, installed.name).get("latest_version")
    except Gone:
        latest = None
    except RegistryError as error:
        return Standing(str(detail.get("status")), None, detail.get("advisory"), str(error))
    advisory = detail.get("advisory")
    return Standing(
        str(detail.get("status")),
        str(latest) if latest else None,
        advisory if isinstance(advisory, dict) else None,
    )


def list_installed(dest: Path | None, printer: Printer) -> Exit:
    folders = folders_to_look_in(dest)
    installs = list(installs_in(folders))
    if not installs:
        where = str(dest) if dest else "the folders skillgate installed into"
        printer.say(f"no skills installed in {where}")
        return Exit.OK
    worst = Exit.OK
    for installed in installs:
        now = standing(installed)
        notes = []
        if now.problem:
            notes.append(f"registry: {shown(now.problem)}")
        if now.latest and now.latest != installed.version and now.status != "quarantined":
            notes.append(f"{shown(now.latest)} available (skillgate upgrade {installed.name})")
        if installed.local_changes():
            notes.append("changed locally")
        printer.say(
            f"{shown(installed.ref):40} {now.status:12} {installed.folder}"
            + (f"   ({'; '.join(notes)})" if notes else "")
        )
        if now.status == "quarantined":
            worst = Exit.QUARANTINED
            advisory = now.advisory or {}
            printer.say(f"    advisory: {shown(advisory.get('reason', 'quarantined'))}")
            printer.say(f"    what to do: {shown(advisory.get('action_required', 'remove it'))}")
        elif now.status == "yanked":
            printer.say("    yanked by its owner: it will not be chosen as latest again")
    return worst


def matching(names: list[str], installs: list[Installed]) -> list[Installed]:
    if not names:
        return installs
    wanted = [Spec.parse(name) for name in names]
    return [
        installed
        for installed in installs
        if any(
            spec.name == installed.name and spec.owner in {None, installed.owner} for spec in wanted
        )
    ]


def upgrade(names: list[str], dest: Path | None, force: bool, printer: Printer) -> Exit:
    installs = matching(names, list(installs_in(folders_to_look_in(dest))))
    if not installs:
        raise Failure(f"nothing to upgrade: {' '.join(names) or 'no skills'} installed")
    worst = Exit.OK
    for installed in installs:
        try:
            registry = Registry(installed.registry)
            spec = Spec(installed.owner, installed.name, None)
            latest, _ = resolve(registry, spec)
            if latest == installed.version:
                printer.say(f"{shown(installed.ref)} is the latest version")
                continue
            spec = Spec(installed.owner, installed.name, latest)
            install(spec, installed.folder.parent, force, registry, printer, installed.folder.name)
        except Failure as failure:
            printer.note(f"skillgate: {installed.name}: {failure}")
            worst = max(worst, failure.code)
    return worst


def uninstall(names: list[str], dest: Path | None, force: bool, printer: Printer) -> Exit:
    installs = list(installs_in(folders_to_look_in(dest)))
    for name in names:
        found = matching([name], installs)
        if not found:
            where = str(dest) if dest else "the folders skillgate installed into"
            raise Failure(f"{name} is not installed in {where} (see `skillgate list`)")
        if len(found) > 1:
            listed = ", ".join(str(i.folder) for i in found)
            raise Failure(f"{name} is installed in several places ({listed}): pass --dest")
        installed = found[0]
        changes = installed.local_changes()
        if changes and not force:
            raise Failure(
                f"{installed.folder} has local changes ({changes[0]}…); pass --force to remove "
                "them too"
            )
        try:
            shutil.rmtree(installed.folder)
        except OSError as error:
            raise Failure(f"cannot remove {installed.folder}: {error}") from error
        printer.say(f"uninstalled {shown(installed.ref)} from {installed.folder}")
    return Exit.OK
