"""Git sources: strict repository URLs, refs resolved on the remote, one shallow fetch of real
repositories (file:// as the tests allow), bounded in time even against a host that hangs."""

from __future__ import annotations

import subprocess
import time

import pytest

from pipeline.sources.errors import ContentTooLarge, SourceRejected, SourceUnavailable
from pipeline.sources.git import FILE_HOST, RefKind, fetch_skill, parse_repo_url
from tests.support.bundles import text_of
from tests.support.git_repos import commit_files, file_url, git, make_repo
from tests.support.skills import skill_md
from tests.support.slow_git import HangingGitHost

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _allow_file_urls(settings):
    settings.SKILLGATE_GIT_ALLOW_FILE_URLS = True


@pytest.fixture
def repo(tmp_path):
    return make_repo(
        tmp_path,
        "someorg",
        "skills",
        {
            "README.md": "repo readme",
            "skills/pdf/SKILL.md": skill_md("pdf-tools"),
            "skills/pdf/scripts/run.py": "print('hi')\n",
            "skills/pdf/assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\xff\xfe",
        },
    )


def test_fetches_only_the_skill_folder_with_paths_relative_to_it(repo):
    fetched = fetch_skill(file_url(repo), "skills/pdf", "")
    assert [f.path for f in fetched.bundle.files] == [
        "SKILL.md",
        "assets/logo.png",
        "scripts/run.py",
    ]
    logo = fetched.bundle.get("assets/logo.png")
    assert logo is not None
    assert logo.text is None
    assert fetched.commit == git(repo, "rev-parse", "HEAD").strip()
    assert (fetched.repo.host, fetched.repo.owner, fetched.repo.repo) == (
        FILE_HOST,
        "someorg",
        "skills",
    )


def test_a_ref_selects_the_branch(repo):
    git(repo, "checkout", "--quiet", "-b", "next")
    commit_files(repo, {"skills/pdf/SKILL.md": skill_md("pdf-tools", body="v2")}, "v2")
    git(repo, "checkout", "--quiet", "main")
    on_main = fetch_skill(file_url(repo), "skills/pdf", "")
    on_next = fetch_skill(file_url(repo), "skills/pdf", "next")
    assert "v2" not in text_of(on_main.bundle, "SKILL.md")
    assert "v2" in text_of(on_next.bundle, "SKILL.md")
    assert on_next.ref.name == "refs/heads/next"


def test_an_unknown_ref_says_so(repo):
    with pytest.raises(SourceRejected) as raised:
        fetch_skill(file_url(repo), "skills/pdf", "no-such-branch")
    assert raised.value.field == "ref"
    assert "not found" in raised.value.message


def test_a_missing_repository_says_so(tmp_path):
    with pytest.raises(SourceRejected) as raised:
        fetch_skill((tmp_path / "org" / "nothing").as_uri(), "", "")
    assert raised.value.field == "repo_url"


def test_an_empty_skill_path_says_so(repo):
    with pytest.raises(SourceRejected, match="no files found under 'skills/none'"):
        fetch_skill(file_url(repo), "skills/none", "")


def test_file_count_and_size_limits_apply_before_reading(repo, settings):
    settings.SKILLGATE_MAX_FILES = 2
    with pytest.raises(SourceRejected, match="3 files, over the limit of 2"):
        fetch_skill(file_url(repo), "skills/pdf", "")
    settings.SKILLGATE_MAX_FILES = 200
    settings.SKILLGATE_GIT_MAX_BUNDLE_BYTES = 10
    with pytest.raises(ContentTooLarge):
        fetch_skill(file_url(repo), "skills/pdf", "")


def test_the_download_itself_is_capped(repo, settings):
    settings.SKILLGATE_GIT_MAX_REPO_BYTES = 1
    with pytest.raises(ContentTooLarge, match="download exceeds"):
        fetch_skill(file_url(repo), "skills/pdf", "")


def test_submodules_and_symlinks_are_not_followed(tmp_path):
    inner = make_repo(tmp_path, "o", "inner", {"secret.txt": "inner"})
    outer = make_repo(tmp_path, "o", "outer", {"SKILL.md": skill_md("outer-skill")})
    git(
        outer,
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "--quiet",
        file_url(inner),
        "vendored",
    )
    (outer / "link.md").symlink_to("/etc/passwd")
    commit_files(outer, {}, "add submodule and link")
    fetched = fetch_skill(file_url(outer), "", "")
    assert sorted(f.path for f in fetched.bundle.files) == [".gitmodules", "SKILL.md"]


def test_non_utf8_text_files_are_refused(tmp_path):
    repo = make_repo(tmp_path, "o", "r", {"SKILL.md": skill_md(), "notes.md": b"caf\xe9"})
    with pytest.raises(SourceRejected, match=r"notes\.md is not valid UTF-8"):
        fetch_skill(file_url(repo), "", "")


def test_a_bundled_git_folder_is_refused_naming_the_path(tmp_path):
    """Issue 9 item 7: files under a .git folder configure commands that git runs in the
    installed skill (core.fsmonitor); a repository may carry such a folder under another name
    only, so git sources are checked like inline uploads."""
    repo = make_repo(tmp_path, "o", "r", {"SKILL.md": skill_md(), "x/.hg/hgrc": "[hooks]\n"})
    with pytest.raises(SourceRejected, match=r"'x/\.hg/hgrc'.*version-control folder"):
        fetch_skill(file_url(repo), "", "")


# --- Issue 9 items 1 and 2: one strict parse into (host, owner, repo), fetched as rebuilt ----


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/anthropics/../attacker/evil-skill.git",
        "https://github.com/anthropics/%2e%2e/attacker/evil-skill",
        "https://github.com//anthropics/../../attacker/evil-skill",
        "https://github.com/anthropics/./evil-skill",
        "https://github.com/anthropics/evil-skill/../../attacker/x",
        "https://github.com/anthropics/%65vil",
        "https://anthropics@github.com/attacker/evil-skill",
        "https://github.com/anthropics/skills?ref=x",
        "https://github.com/anthropics/skills#main",
        "https://github.com/anthropics/skills/",
        "https://github.com/anthropics/..",
        "https://github.com/./skills",
        "https://github.com:8443/anthropics/skills",
        "https://github.com./anthropics/skills",
        "https://github.com/anthropics/skills\n",
        "https://github.com/anthropics\\..\\attacker/x",
        "https://gitlab.com/anthropics/sub/skills",
    ],
)
def test_urls_that_could_mean_another_repository_are_refused(url):
    with pytest.raises(SourceRejected) as raised:
        parse_repo_url(url)
    assert raised.value.field == "repo_url"


@pytest.mark.parametrize(
    ("url", "host", "owner", "fetched"),
    [
        (
            "https://github.com/Anthropics/skills",
            "github.com",
            "anthropics",
            "https://github.com/anthropics/skills.git",
        ),
        (
            "https://GitHub.com/anthropics/skills.git",
            "github.com",
            "anthropics",
            "https://github.com/anthropics/skills.git",
        ),
        (
            "https://gitlab.com/anthropics/skills",
            "gitlab.com",
            "anthropics",
            "https://gitlab.com/anthropics/skills.git",
        ),
    ],
)
def test_the_url_git_fetches_is_rebuilt_from_host_owner_and_repo(url, host, owner, fetched):
    location = parse_repo_url(url)
    assert (location.host, location.owner, location.url) == (host, owner, fetched)


def test_a_port_is_allowed_only_when_the_allowed_host_names_it(settings):
    settings.SKILLGATE_GIT_ALLOWED_HOSTS = ["git.example.org:8443"]
    assert parse_repo_url("https://git.example.org:8443/o/r").host == "git.example.org:8443"
    with pytest.raises(SourceRejected):
        parse_repo_url("https://git.example.org/o/r")


# --- Issue 9 item 3: what the ref names on the remote ----------------------------------------


def test_refs_are_resolved_to_branches_tags_or_something_else(repo):
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "tag", "--annotate", "v1", "-m", "v1")
    git(repo, "update-ref", "refs/pull/7/head", "HEAD")
    url = file_url(repo)
    cases = {
        "": (RefKind.BRANCH, "refs/heads/main"),
        "main": (RefKind.BRANCH, "refs/heads/main"),
        "v1": (RefKind.TAG, "refs/tags/v1"),
        "refs/pull/7/head": (RefKind.OTHER, "refs/pull/7/head"),
        head: (RefKind.COMMIT, ""),
    }
    for ref, (kind, name) in cases.items():
        fetched = fetch_skill(url, "skills/pdf", ref)
        assert (fetched.ref.kind, fetched.ref.name) == (kind, name), ref
        assert fetched.commit == head
        assert fetched.is_tip_of_branch_or_tag == (kind in (RefKind.BRANCH, RefKind.TAG)), ref


def test_a_name_that_is_both_a_branch_and_a_tag_must_be_spelled_out(repo):
    git(repo, "branch", "release")
    git(repo, "tag", "release")
    with pytest.raises(SourceRejected, match="both a branch and a tag"):
        fetch_skill(file_url(repo), "skills/pdf", "release")
    assert fetch_skill(file_url(repo), "skills/pdf", "refs/tags/release").ref.kind == RefKind.TAG


# --- Issue 9 item 13: a host that accepts and never answers ---------------------------------


def test_a_hanging_git_host_costs_at_most_the_time_limit_and_leaves_no_process(settings):
    server = HangingGitHost().start()
    settings.SKILLGATE_GIT_ALLOWED_HOSTS = [server.host]
    settings.SKILLGATE_GIT_TIMEOUT_S = 1.5
    try:
        started = time.monotonic()
        with pytest.raises(SourceUnavailable) as raised:
            fetch_skill(server.url(), "", "")
        elapsed = time.monotonic() - started
    finally:
        server.stop()
    assert raised.value.status_code == 504
    assert server.accepted >= 1
    assert elapsed < 5, elapsed
    leftovers = subprocess.run(
        ["pgrep", "-f", f"git-remote-https.*{server.host}"], capture_output=True, text=True
    ).stdout
    assert leftovers == ""
