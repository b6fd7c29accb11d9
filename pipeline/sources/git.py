"""Git sources: one shallow fetch of a repository at a ref, read straight from the object store.

The repository URL is parsed once, with a strict grammar, into (host, owner, repo), and the URL
git fetches is rebuilt from those parts: what the registry trusts (a trusted organisation is a
host and an owner) is exactly what it fetches. The ref is resolved with ``git ls-remote`` first,
so the pipeline knows whether it fetched the tip of a branch or tag of that repository, or
something merely reachable through it (a pull request's head, any commit of any fork).

Nothing from the repository is ever checked out or run: no working tree (so no hooks, smudge
filters or symlinks to follow), no submodules, no tags, no redirects, only the allowed
protocols. The whole fetch is bounded in time and in bytes downloaded, and the skill folder in
file count and size, before a single blob is read.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from pipeline.sources.errors import ContentTooLarge, SourceRejected, SourceUnavailable
from pipeline.sources.paths import checked_bundle_paths, checked_path
from registry.bundles import Bundle, BundleFile

FILE_HOST = "file"
"""The host of ``file://`` repositories, which only the tests allow."""

_OWNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
_REPO = re.compile(r"[A-Za-z0-9_.-]{1,100}")
_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,254}")
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_URL_CHARS = re.compile(r"[A-Za-z0-9._~:/-]+")
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
    """A repository as (host, owner, repo); ``url`` is rebuilt from them and is what git
    fetches. ``host`` carries a port only when the allowed host names one."""

    host: str
    owner: str
    repo: str
    file_root: str = ""

    @property
    def url(self) -> str:
        if self.host == FILE_HOST:
            return f"file://{self.file_root}/{self.owner}/{self.repo}"
        return f"https://{self.host}/{self.owner}/{self.repo}.git"


class RefKind:
    BRANCH = "branch"
    TAG = "tag"
    OTHER = "other"
    COMMIT = "commit"


@dataclass(frozen=True)
class ResolvedRef:
    """What the author's ref named on the remote: ``kind`` (branch, tag, another ref such as a
    pull request's head, or a raw commit), the full ``name`` fetched, and the commit ``tip``
    the remote advertised for it (empty for a raw commit)."""

    kind: str
    name: str
    tip: str

    @property
    def is_branch_or_tag(self) -> bool:
        return self.kind in (RefKind.BRANCH, RefKind.TAG)


@dataclass(frozen=True)
class FetchedSkill:
    bundle: Bundle
    commit: str
    repo: RepoLocation
    ref: ResolvedRef

    @property
    def is_tip_of_branch_or_tag(self) -> bool:
        """The fetched commit is the current tip of a branch or tag of the repository itself."""
        return self.ref.is_branch_or_tag and self.commit == self.ref.tip


def parse_repo_url(url: str) -> RepoLocation:
    """Parse ``url`` strictly into (host, owner, repo): ``https://HOST/OWNER/REPO[.git]`` on an
    allowed host, with no credentials, port (unless the allowed host names it), query,
    fragment, percent-encoding, empty, ``.`` or ``..`` segment, and nothing after REPO."""
    scheme, separator, rest = url.partition("://")
    scheme = scheme.lower()
    if not separator or scheme not in ("https", "file"):
        raise SourceRejected(
            "repo_url", f"scheme {scheme or '(none)'!r} is not allowed: use an https:// URL"
        )
    if not _URL_CHARS.fullmatch(rest):
        raise SourceRejected(
            "repo_url",
            "give the repository as https://HOST/OWNER/REPO: plain ASCII letters, digits and "
            "'._-~' only, without credentials, query, fragment or percent-encoding",
        )
    if scheme == "file":
        return _parse_file_url(rest)
    authority, _, path = rest.partition("/")
    host = authority.lower()
    allowed = [h.lower() for h in settings.SKILLGATE_GIT_ALLOWED_HOSTS]
    if host not in allowed:
        raise SourceRejected(
            "repo_url", f"host {host or '(none)'!r} is not allowed; use one of {allowed}"
        )
    segments = path.split("/")
    if len(segments) != 2:
        raise SourceRejected(
            "repo_url", "the URL must name a repository as https://HOST/OWNER/REPO, nothing more"
        )
    owner, repo = _checked_owner_and_repo(*segments)
    return RepoLocation(host=host, owner=owner, repo=repo)


def _parse_file_url(rest: str) -> RepoLocation:
    if not settings.SKILLGATE_GIT_ALLOW_FILE_URLS:
        raise SourceRejected("repo_url", "file:// repositories are not allowed here")
    if not rest.startswith("/"):
        raise SourceRejected("repo_url", "a file:// URL must hold an absolute path")
    segments = rest[1:].split("/")
    if len(segments) < 2 or any(s in ("", ".", "..") for s in segments):
        raise SourceRejected("repo_url", "the path must be /…/OWNER/REPO without '.' or '..'")
    owner, repo = _checked_owner_and_repo(*segments[-2:])
    return RepoLocation(
        host=FILE_HOST, owner=owner, repo=repo, file_root="/" + "/".join(segments[:-2])
    )


def _checked_owner_and_repo(owner: str, repo: str) -> tuple[str, str]:
    if not _OWNER.fullmatch(owner) or owner.endswith("."):
        raise SourceRejected("repo_url", f"repository owner {owner!r} is not a valid name")
    repo = repo.removesuffix(".git")
    if not _REPO.fullmatch(repo) or set(repo) == {"."}:
        raise SourceRejected("repo_url", f"repository name {repo!r} is not a valid name")
    return owner.lower(), repo


def check_ref(ref: str) -> str:
    """A branch, tag, full ref name or full commit id, as git accepts it (empty: the default
    branch)."""
    if ref and (
        not _REF.fullmatch(ref)
        or ".." in ref
        or "//" in ref
        or "/." in ref
        or ref.endswith((".lock", "/", "."))
    ):
        raise SourceRejected("ref", f"ref {ref!r} is not a valid branch, tag or commit name")
    return ref


def check_skill_path(skill_path: str) -> str:
    return checked_path("skill_path", skill_path) if skill_path else ""


def fetch_skill(repo_url: str, skill_path: str, ref: str) -> FetchedSkill:
    """Resolve ``ref`` on the remote, fetch that commit once, and return the skill folder's
    files as a bundle. Raises SourceRejected (the author must fix something), ContentTooLarge
    or SourceUnavailable (the host failed or was too slow: try again)."""
    repo = parse_repo_url(repo_url)
    check_ref(ref)
    skill_path = check_skill_path(skill_path)
    workdir = Path(tempfile.mkdtemp(prefix="skillgate-git-"))
    try:
        git = _Git(workdir, allow_file=repo.host == FILE_HOST)
        git.run("init", "--quiet", "--bare", str(workdir / "repo"))
        resolved = _resolve(git, repo.url, ref)
        git.fetch(repo.url, resolved.name or ref)
        commit = git.run("rev-parse", "FETCH_HEAD^{commit}").strip()
        entries = git.list_tree(skill_path)
        bundle = _read_bundle(git, entries, skill_path, ref or "the default branch")
        return FetchedSkill(bundle=bundle, commit=commit, repo=repo, ref=resolved)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _resolve(git: _Git, url: str, ref: str) -> ResolvedRef:
    """What ``ref`` is on the remote, from ``git ls-remote`` (annotated tags peeled)."""
    patterns = ["HEAD"] if not ref else [ref, f"{ref}^{{}}"]
    listing = git.run("ls-remote", "--symref", "--", url, *patterns)
    tips: dict[str, str] = {}
    head_target = ""
    for line in listing.splitlines():
        left, _, name = line.partition("\t")
        if left.startswith("ref: "):
            head_target = left.removeprefix("ref: ").strip()
            continue
        if name.endswith("^{}"):
            tips[name.removesuffix("^{}")] = left
        else:
            tips.setdefault(name, left)
    if not ref:
        if head_target.startswith("refs/heads/") and "HEAD" in tips:
            return ResolvedRef(RefKind.BRANCH, head_target, tips["HEAD"])
        raise SourceRejected("ref", "the repository has no default branch: give a ref")
    full = ref if ref.startswith("refs/") else ""
    candidates = [full] if full else [f"refs/heads/{ref}", f"refs/tags/{ref}"]
    found = [name for name in candidates if name in tips]
    if len(found) > 1:
        raise SourceRejected(
            "ref",
            f"ref {ref!r} is both a branch and a tag: give refs/heads/{ref} or refs/tags/{ref}",
        )
    if found:
        name = found[0]
        kind = (
            RefKind.BRANCH
            if name.startswith("refs/heads/")
            else RefKind.TAG
            if name.startswith("refs/tags/")
            else RefKind.OTHER
        )
        return ResolvedRef(kind, name, tips[name])
    if _COMMIT.fullmatch(ref):
        return ResolvedRef(RefKind.COMMIT, "", "")
    raise SourceRejected(
        "ref",
        f"ref {ref!r} was not found in the repository (give a branch, a tag, a full ref name "
        "or a full commit id)",
    )


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
        relative = checked_path("skill_path", entry.path[len(prefix) :])
        file = BundleFile(relative, contents[entry.object_id])
        if file.text is None and Path(relative).suffix.lower() in _TEXT_SUFFIXES:
            raise SourceRejected("skill_path", f"{relative} is not valid UTF-8 text")
        files.append(file)
    checked_bundle_paths("skill_path", [f.path for f in files])
    return Bundle(files)


class _Git:
    """Runs git with a scrubbed environment (no user or system config, no prompts) and one time
    budget for the whole fetch. Each command runs in its own process group, so a timeout also
    kills the transport helpers (``git-remote-https``) a hanging server keeps waiting."""

    def __init__(self, workdir: Path, *, allow_file: bool) -> None:
        self.repo = workdir / "repo"
        self.timeout = settings.SKILLGATE_GIT_TIMEOUT_S
        self.deadline = time.monotonic() + self.timeout
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

    def _timed_out(self, what: str) -> SourceUnavailable:
        return SourceUnavailable(
            f"{what} took longer than {self.timeout:g}s: the git host is slow or not answering",
            timed_out=True,
        )

    def run(self, *args: str, stdin: bytes | None = None) -> str:
        return self.run_bytes(*args, stdin=stdin).decode("utf-8", "replace")

    def run_bytes(self, *args: str, stdin: bytes | None = None) -> bytes:
        """Run one git command within the remaining budget; a failure of ``ls-remote`` (the
        only other command that talks to the host) is classified like a fetch's."""
        with subprocess.Popen(
            self._command(*args),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
            start_new_session=True,
        ) as process:
            try:
                stdout, stderr = process.communicate(
                    stdin, timeout=max(self.deadline - time.monotonic(), 0.01)
                )
            except subprocess.TimeoutExpired as exc:
                _kill_group(process)
                raise self._timed_out(f"git {args[0]}") from exc
        if process.returncode != 0:
            if args[0] == "ls-remote":
                raise _classify_fetch_error(stderr.decode("utf-8", "replace"), args[-1])
            raise SourceUnavailable(f"git {args[0]} failed: {_last_line(stderr)}")
        return stdout

    def fetch(self, url: str, ref: str) -> None:
        """Shallow fetch, killed when it runs over the time or download-size limit."""
        command = self._command(
            "fetch", "--quiet", "--depth=1", "--no-tags", "--no-recurse-submodules", "--", url, ref
        )
        with subprocess.Popen(
            command,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        ) as process:
            while process.poll() is None:
                if time.monotonic() > self.deadline:
                    _kill_group(process)
                    raise self._timed_out("fetching the repository")
                if _tree_size(self.repo) > settings.SKILLGATE_GIT_MAX_REPO_BYTES:
                    _kill_group(process)
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
    """What git's failure to talk to the host means: the author's mistake (a ref or repository
    that does not exist) or the host's failure, classified by what failed."""
    lowered = stderr.lower()
    if "couldn't find remote ref" in lowered or "not our ref" in lowered:
        return SourceRejected("ref", f"ref {ref!r} was not found in the repository")
    if any(
        hint in lowered
        for hint in (
            "not found",
            "does not appear to be a git repository",
            "authentication",
            "returned error: 401",
            "returned error: 403",
            "returned error: 404",
        )
    ):
        return SourceRejected(
            "repo_url", "the repository was not found or is not public; check the URL"
        )
    fatal = [line for line in stderr.splitlines() if line.startswith("fatal:")]
    reason = (fatal or [_last_line(stderr.encode())])[0]
    return SourceUnavailable(
        f"could not fetch the repository: {reason}",
        timed_out=_network_failure_class(lowered) == "fetch_timeout",
        error_class=_network_failure_class(lowered),
    )


_STDERR_HINTS = (
    ("dns_failure", ("could not resolve host", "name or service not known",
                     "temporary failure in name resolution", "could not resolve proxy")),
    ("connection_refused", ("connection refused", "couldn't connect to server")),
    ("fetch_timeout", ("timed out", "timeout was reached")),
    ("tls_error", ("ssl", "tls", "gnutls", "certificate")),
)  # fmt: skip
_HTTP_STATUS = re.compile(r"returned error: (\d{3})")


def _network_failure_class(lowered_stderr: str) -> str:
    """The class of a failed fetch from git's (curl's) own words."""
    for error_class, hints in _STDERR_HINTS:
        if any(hint in lowered_stderr for hint in hints):
            return error_class
    status = _HTTP_STATUS.search(lowered_stderr)
    if status:
        return "http_4xx" if status.group(1).startswith("4") else "http_5xx"
    return "connection_failed"


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    process.wait()


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
