"""Real git repositories on disk, served to the code under test as file:// URLs (or over smart
HTTP by ``tests.support.git_server``)."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from registry.namespaces import VERIFICATION_FILE

_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, env=_ENV, check=True, capture_output=True, text=True
    ).stdout


def make_repo(
    root: Path,
    owner: str,
    name: str,
    files: Mapping[str, str | bytes],
    branch: str = "main",
    *,
    verified_for: Sequence[str] = (),
) -> Path:
    """A repository at ROOT/OWNER/NAME with ``files`` committed on ``branch``; with
    ``verified_for``, the verification file naming those accounts is committed with them (the
    proof of control that lets an account claim OWNER's namespace)."""
    repo = root / owner / name
    repo.mkdir(parents=True)
    git(repo, "init", "--quiet", "--initial-branch", branch)
    commit_files(repo, {**files, **owner_file(*verified_for)}, "initial")
    return repo


def owner_file(*accounts: str) -> dict[str, str]:
    """The verification file naming ``accounts`` (nothing when none is named)."""
    if not accounts:
        return {}
    return {
        VERIFICATION_FILE: "# accounts that publish this owner's skills\n"
        + "".join(f"{account}\n" for account in accounts)
    }


def commit_files(repo: Path, files: Mapping[str, str | bytes], message: str) -> str:
    for path, content in files.items():
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def file_url(repo: Path) -> str:
    return repo.resolve().as_uri()
