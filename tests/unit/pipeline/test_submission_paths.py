"""Issue 9 items 7 and 8: file paths that are dangerous or ambiguous on some filesystem are
refused at intake with a 400 that names the path."""

from __future__ import annotations

import json

import pytest

from pipeline.models import Submission
from tests.support.skills import skill_md

pytestmark = pytest.mark.django_db
URL = "/api/v1/submissions"


@pytest.fixture
def api(make_user, client_for):
    return client_for(make_user("alice"))


def post_files(api, files: dict[str, str]):
    body = {"files": {"SKILL.md": skill_md(), **files}}
    return api.post(URL, data=json.dumps(body), content_type="application/json")


@pytest.mark.parametrize(
    "path",
    [
        ".git/HEAD",
        ".git/config",
        ".git/objects/info/packs",
        ".git/refs/heads/x",
        "sub/.git/config",
        ".GIT/config",
        ".git",
        ".hg/hgrc",
        ".svn/entries",
        ".bzr/branch/branch.conf",
        "_darcs/prefs/defaults",
        "CVS/Root",
        "GIT~1/config",
    ],
)
def test_version_control_folders_are_refused(api, path):
    """A bundled .git/config with core.fsmonitor runs a command on `git status` in the
    installed folder."""
    response = post_files(api, {path: "[core]\n\tfsmonitor = touch /tmp/pwned\n"})
    assert response.status_code == 400, response.json()
    assert path in response.json()["errors"]["files"][0]
    assert not Submission.objects.exists()


@pytest.mark.parametrize(
    ("files", "named"),
    [
        ({"skill.md": "x"}, "skill.md"),
        ({"a.txt": "1", "A.TXT": "2"}, "a.txt"),
        ({"caf\u00e9.md": "nfc", "cafe\u0301.md": "nfd"}, "café.md"),
        ({"SKILL.md/x": "x"}, "SKILL.md/x"),
        ({"docs": "file", "docs/readme.md": "x"}, "docs"),
        ({"．．/x": "x"}, "．．/x"),
        ({"‥/x": "x"}, "‥/x"),
        ({"..／x": "x"}, "..／x"),
        ({"a∕..∕b": "x"}, "a∕..∕b"),
        ({"%2e%2e/x": "x"}, "%2e%2e/x"),
        ({" lead.md": "x"}, " lead.md"),
        ({"trail.md ": "x"}, "trail.md "),
        ({"trail.": "x"}, "trail."),
        ({"CON": "x"}, "CON"),
        ({"scripts/nul.txt": "x"}, "scripts/nul.txt"),
        ({"LPT1.md": "x"}, "LPT1.md"),
        ({"~/.bashrc": "x"}, "~/.bashrc"),
        ({"what?.md": "x"}, "what?.md"),
        ({"a|b.md": "x"}, "a|b.md"),
    ],
)
def test_paths_ambiguous_on_some_filesystem_are_refused_by_name(api, files, named):
    response = post_files(api, files)
    assert response.status_code == 400, response.json()
    assert named in response.json()["errors"]["files"][0], response.json()
    assert not Submission.objects.exists()


def test_paths_are_stored_in_nfc(api):
    response = post_files(api, {"cafe\u0301.md": "nfd"})
    assert response.status_code == 201, response.json()
    snapshot = Submission.objects.get().bundle
    assert snapshot is not None
    assert "caf\u00e9.md" in [entry["path"] for entry in snapshot.files]


def test_ordinary_dotfiles_and_unicode_names_are_fine(api):
    files = {".github/workflows/ci.yml": "on: push", ".gitignore": "*.pyc", "notes/día.md": "x"}
    assert post_files(api, files).status_code == 201
