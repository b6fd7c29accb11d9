"""Git sources: one shallow fetch of ``repo_url`` at ``ref``, read straight from the object store.

Nothing from the repository is ever checked out or run: no working tree (so no hooks, smudge
filters or symlinks to follow), no submodules, no tags, no redirects, only the allowed
protocols. The fetch is bounded in time and in bytes downloaded, and the skill folder in file
count and size, before a single blob is read.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.conf import settings

from pipeline.sources.errors import ContentTooLarge, SourceRejected, SourceUnavailable
from pipeline.sources.paths import check_relative_path
from registry.bundles import Bundle, BundleFile

_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,254}")
_OWNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_TEXT_SUFFIXES = frozenset(
    {
        ".md",
        ".markdown",
        ".txt",
        ".py",
        ".sh",
        ".bash",
        ".js",
        ".mjs",
        ".cjs",
        ".ts",
        ".json",
        ".yaml",
        ".yml",
        ".toml",
        ".cfg",
        ".ini",
        ".html",
        ".css",
        ".xml",
        ".csv",
        ".rb",
        ".go",
    }
)
_SUBMODULE_MODE = "160000"
_SYMLINK_MODE = "120000"
_POLL_S = 0.2


@dataclass(frozen=True)
class RepoLocation:
    url: str
    owner: str
    name: str


@dataclass(frozen=True)
class FetchedSkill:
    bundle: Bundle
    commit: str
    repo: RepoLocation


def parse_repo_url(url: str) -> RepoLocation:
    """Validate ``url`` against the allowed schemes and hosts and find the repository owner."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme == "file":
        if not settings.SKILLGATE_GIT_ALLOW_FILE_URLS:
            raise SourceRejected("repo_url", "file:// repositories are not allowed here")
        segments = [s for s in unquote(parts.path).split("/") if s]
    elif scheme == "https":
        if parts.username or parts.password:
            raise SourceRejected("repo_url", "remove the credentials from the repository URL")
        host = (parts.hostname or "").lower()
        allowed = [h.lower() for h in settings.SKILLGATE_GIT_ALLOWED_HOSTS]
        if host not in allowed:
            raise SourceRejected(
                "repo_url", f"host {host or '(none)'!r} is not allowed; use one of {allowed}"
            )
        if parts.port not in (None, 443):
            raise SourceRejected("repo_url", "use the host's standard https port")
        if parts.query or parts.fragment:
            raise SourceRejected("repo_url", "remove the query string or fragment from the URL")
        segments = [s for s in parts.path.split("/") if s]
    else:
        raise SourceRejected(
            "repo_url", f"scheme {scheme or '(none)'!r} is not allowed: use an https:// URL"
        )
    if len(segments) < 2:
        raise SourceRejected("repo_url", "the URL must name a repository as OWNER/REPO")
    owner, name = segments[-2] if scheme == "file" else segments[0], segments[-1]
    if not _OWNER.fullmatch(owner):
        raise SourceRejected("repo_url", f"repository owner {owner!r} is not a valid name")
    return RepoLocation(url=url.strip(), owner=owner.lower(), name=name.removesuffix(".git"))


def check_ref(ref: str) -> str:
    if ref and (not _REF.fullmatch(ref) or ".." in ref or ref.endswith((".lock", "/"))):
        raise SourceRejected("ref", f"ref {ref!r} is not a valid branch, tag or commit name")
    return ref


def fetch_skill(repo_url: str, skill_path: str, ref: str) -> FetchedSkill:
    """Fetch the skill folder once and return its files as a bundle."""
    repo = parse_repo_url(repo_url)
    check_ref(ref)
    if skill_path:
        check_relative_path("skill_path", skill_path, max_length=settings.SKILLGATE_MAX_PATH_LENGTH)
    workdir = Path(tempfile.mkdtemp(prefix="skillgate-git-"))
    try:
        git = _Git(workdir, allow_file=repo.url.lower().startswith("file:"))
        git.run("init", "--quiet", "--bare", str(workdir / "repo"))
        git.fetch(repo.url, ref or "HEAD")
        commit = git.run("rev-parse", "FETCH_HEAD^{commit}").strip()
        entries = git.list_tree(skill_path)
        bundle = _read_bundle(git, entries, skill_path, ref or "the default branch")
        return FetchedSkill(bundle=bundle, commit=commit, repo=repo)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@dataclass(frozen=True)
class _Entry:
    mode: str
    object_id: str
    size: int
    path: str


def _read_bundle(git: _Git, entries: list[_Entry], skill_path: str, ref_label: str) -> Bundle:
    prefix = f"{skill_path.rstrip('/')}/" if skill_path else ""
    blobs = [e for e in entries if e.mode not in (_SUBMODULE_MODE, _SYMLINK_MODE)]
    if not blobs:
        where = f"'{skill_path}'" if skill_path else "the repository root"
        raise SourceRejected("skill_path", f"no files found under {where} at {ref_label}")
    if len(blobs) > settings.SKILLGATE_MAX_FILES:
        raise SourceRejected(
            "skill_path",
            f"the skill has {len(blobs)} files, over the limit of {settings.SKILLGATE_MAX_FILES}",
        )
    total = sum(e.size for e in blobs)
    if total > settings.SKILLGATE_GIT_MAX_BUNDLE_BYTES:
        raise ContentTooLarge(
            "skill_path",
            f"the skill's files total {total} bytes, over the "
            f"{settings.SKILLGATE_GIT_MAX_BUNDLE_BYTES}-byte limit for git sources",
        )
    contents = git.read_blobs([e.object_id for e in blobs])
    files = []
    for entry in blobs:
        relative = entry.path[len(prefix) :]
        check_relative_path("skill_path", relative, max_length=settings.SKILLGATE_MAX_PATH_LENGTH)
        file = BundleFile(relative, contents[entry.object_id])
        if file.text is None and Path(relative).suffix.lower() in _TEXT_SUFFIXES:
            raise SourceRejected("skill_path", f"{relative} is not valid UTF-8 text")
        files.append(file)
    return Bundle(files)


class _Git:
    """Runs git with a scrubbed environment: no user or system config, no prompts."""

    def __init__(self, workdir: Path, *, allow_file: bool) -> None:
        self.repo = workdir / "repo"
        self.timeout = settings.SKILLGATE_GIT_TIMEOUT_S
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(workdir),
            "LC_ALL": "C",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_ALLOW_PROTOCOL": "file" if allow_file else "https",
        }
        self.config = [
            "-c", "core.hooksPath=/dev/null",
            "-c", "http.followRedirects=false",
            "-c", "fetch.recurseSubmodules=false",
            "-c", "transfer.fsckObjects=true",
            "-c", f"protocol.file.allow={'always' if allow_file else 'never'}",
        ]  # fmt: skip

    def _command(self, *args: str) -> list[str]:
        git_dir = ["--git-dir", str(self.repo)] if self.repo.exists() else []
        return ["git", *self.config, *git_dir, *args]

    def run(self, *args: str, stdin: bytes | None = None) -> str:
        return self.run_bytes(*args, stdin=stdin).decode("utf-8", "replace")

    def run_bytes(self, *args: str, stdin: bytes | None = None) -> bytes:
        try:
            done = subprocess.run(
                self._command(*args),
                input=stdin,
                capture_output=True,
                env=self.env,
                timeout=self.timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise SourceUnavailable(f"git {args[0]} timed out", timed_out=True) from exc
        if done.returncode != 0:
            raise SourceUnavailable(f"git {args[0]} failed: {_last_line(done.stderr)}")
        return done.stdout

    def fetch(self, url: str, ref: str) -> None:
        """Shallow fetch, killed when it runs over the time or download-size limit."""
        command = self._command(
            "fetch", "--quiet", "--depth=1", "--no-tags", "--no-recurse-submodules", "--", url, ref
        )
        with subprocess.Popen(
            command, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        ) as process:
            deadline = time.monotonic() + self.timeout
            while process.poll() is None:
                if time.monotonic() > deadline:
                    process.kill()
                    raise SourceUnavailable(
                        f"fetching the repository took longer than {self.timeout:g}s",
                        timed_out=True,
                    )
                if _tree_size(self.repo) > settings.SKILLGATE_GIT_MAX_REPO_BYTES:
                    process.kill()
                    raise ContentTooLarge(
                        "repo_url",
                        f"the repository download exceeds "
                        f"{settings.SKILLGATE_GIT_MAX_REPO_BYTES} bytes",
                    )
                time.sleep(_POLL_S)
            stderr = process.stderr.read() if process.stderr else b""
        if process.returncode != 0:
            raise _classify_fetch_error(stderr.decode("utf-8", "replace"), ref)

    def list_tree(self, skill_path: str) -> list[_Entry]:
        pathspec = [f"{skill_path.rstrip('/')}/"] if skill_path else []
        raw = self.run_bytes("ls-tree", "-r", "-l", "-z", "FETCH_HEAD", "--", *pathspec)
        entries = []
        for record in filter(None, raw.split(b"\0")):
            meta, _, path_bytes = record.partition(b"\t")
            mode, _kind, object_id, size = meta.decode("ascii").split()
            try:
                path = path_bytes.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise SourceRejected("skill_path", "a file name is not valid UTF-8") from exc
            entries.append(_Entry(mode, object_id, 0 if size == "-" else int(size), path))
        return entries

    def read_blobs(self, object_ids: list[str]) -> dict[str, bytes]:
        raw = self.run_bytes("cat-file", "--batch", stdin="\n".join(object_ids).encode() + b"\n")
        blobs: dict[str, bytes] = {}
        offset = 0
        for _ in object_ids:
            header_end = raw.index(b"\n", offset)
            object_id, _kind, size = raw[offset:header_end].decode("ascii").split()
            start = header_end + 1
            blobs[object_id] = raw[start : start + int(size)]
            offset = start + int(size) + 1
        return blobs


def _classify_fetch_error(stderr: str, ref: str) -> Exception:
    lowered = stderr.lower()
    if "couldn't find remote ref" in lowered or "not our ref" in lowered:
        return SourceRejected("ref", f"ref {ref!r} was not found in the repository")
    if any(
        hint in lowered
        for hint in ("not found", "does not appear to be a git repository", "authentication")
    ):
        return SourceRejected(
            "repo_url", "the repository was not found or is not public; check the URL"
        )
    fatal = [line for line in stderr.splitlines() if line.startswith("fatal:")]
    return SourceUnavailable(
        f"could not fetch the repository: {(fatal or [_last_line(stderr.encode())])[0]}"
    )


def _tree_size(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except FileNotFoundError:
                continue
    return total


def _last_line(stderr: bytes) -> str:
    lines = [line for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no error message"
