"""Git sources: one shallow fetch of real repositories (file:// as the tests allow)."""

from __future__ import annotations

import json

import pytest

from pipeline.sources.errors import ContentTooLarge, SourceRejected
from pipeline.sources.git import fetch_skill, parse_repo_url
from tests.support.git_repos import commit_files, file_url, git, make_repo
from tests.support.skills import skill_md

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _allow_file_urls(settings):
    settings.SKILLGATE_GIT_ALLOW_FILE_URLS = True


@pytest.fixture
def repo(tmp_path):
    return make_repo(
        tmp_path,
        "SomeOrg",
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
    assert fetched.bundle.get("assets/logo.png").text is None
    assert fetched.commit == git(repo, "rev-parse", "HEAD").strip()
    assert fetched.repo.owner == "someorg"


def test_a_ref_selects_the_branch(repo):
    git(repo, "checkout", "--quiet", "-b", "next")
    commit_files(repo, {"skills/pdf/SKILL.md": skill_md("pdf-tools", body="v2")}, "v2")
    git(repo, "checkout", "--quiet", "main")
    on_main = fetch_skill(file_url(repo), "skills/pdf", "")
    on_next = fetch_skill(file_url(repo), "skills/pdf", "next")
    assert "v2" not in on_main.bundle.get("SKILL.md").text
    assert "v2" in on_next.bundle.get("SKILL.md").text


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


@pytest.mark.parametrize(
    ("url", "owner"),
    [
        ("https://github.com/Anthropics/skills", "anthropics"),
        ("https://github.com/anthropics/skills.git", "anthropics"),
        ("https://gitlab.com/group/sub/repo", "group"),
    ],
)
def test_the_owner_is_the_first_path_segment_lowercased(url, owner):
    assert parse_repo_url(url).owner == owner


def test_a_git_submission_through_the_api_records_its_commit(repo, make_user, client_for):
    response = client_for(make_user()).post(
        "/api/v1/submissions",
        data=json.dumps({"repo_url": file_url(repo), "skill_path": "skills/pdf"}),
        content_type="application/json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["skill"] == {"owner": "someorg", "name": "pdf-tools"}
    assert body["source"]["commit"] == git(repo, "rev-parse", "HEAD").strip()


def test_an_unknown_ref_through_the_api_is_a_400(repo, make_user, client_for):
    response = client_for(make_user()).post(
        "/api/v1/submissions",
        data=json.dumps({"repo_url": file_url(repo), "ref": "v9"}),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "ref 'v9' was not found" in response.json()["errors"]["ref"][0]
