"""``skillgate`` as an installer uses it, against the live registry: search, info, install by
name or @latest, reinstall, upgrade, list (with the advisories that now cover what is
installed), uninstall; and the messages for what cannot be installed: every version
quarantined, a version that does not exist, a URL that is no registry."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from registry import lifecycle
from registry.lifecycle import Actor
from tests.support.cli import skillgate
from tests.support.stack import WebServer, stack_environment
from tests.support.versions import make_security, publish_skill

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def registry(live_db) -> Iterator[WebServer]:
    server = WebServer(stack_environment())
    server.start()
    yield server
    server.stop()


@pytest.fixture
def author(live_db):
    return get_user_model().objects.create_user(f"in-{uuid.uuid4().hex[:10]}", password="pw")


@pytest.fixture
def security(live_db):
    user = get_user_model().objects.create_user(f"sec-{uuid.uuid4().hex[:8]}", password="pw")
    return make_security(user)


@pytest.fixture
def home(tmp_path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_search_finds_by_name_and_description_best_first(registry, author):
    word = uuid.uuid4().hex[:10]
    publish_skill(author, f"{word}", description="Plans trips.", body=f"one {author}")
    publish_skill(author, f"{word}-maps", description="Draws maps.", body=f"two {author}")
    publish_skill(author, unique("atlas"), description=f"Knows {word} well.", body=f"3 {author}")
    found = skillgate("search", word, registry=registry.url)
    assert found.returncode == 0, found.stderr
    rows = found.stdout.splitlines()
    assert rows[0].startswith(f"{author.username}/{word} ")
    assert rows[1].startswith(f"{author.username}/{word}-maps ")
    assert "Knows" in rows[2]
    nothing = skillgate("search", uuid.uuid4().hex, registry=registry.url)
    assert nothing.returncode == 0 and "nothing published matches" in nothing.stdout


def test_install_by_bare_name_reinstall_upgrade_list_and_uninstall(
    registry, author, home, tmp_path
):
    name = unique("planner")
    publish_skill(author, name, body=f"first by {author}")
    dest = tmp_path / "skills"

    first = skillgate(
        "install", f"{name}@latest", "--dest", str(dest), registry=registry.url, home=home
    )
    assert first.returncode == 0, first.stderr
    assert f"installed {author.username}/{name}@1.0.0 into {dest / name}" in first.stdout

    again = skillgate("install", name, "--dest", str(dest), registry=registry.url, home=home)
    assert again.returncode == 0, again.stderr
    assert f"{author.username}/{name}@1.0.0 is already installed in {dest / name}" in again.stdout

    publish_skill(author, name, body=f"second by {author}")
    listed = skillgate("list", home=home)
    assert listed.returncode == 0, listed.stderr
    assert f"{author.username}/{name}@1.0.0" in listed.stdout and str(dest / name) in listed.stdout
    assert f"1.0.1 available (skillgate upgrade {name})" in listed.stdout

    upgraded = skillgate("upgrade", home=home)
    assert upgraded.returncode == 0, upgraded.stderr
    assert f"replaced {author.username}/{name}@1.0.0 with {author.username}/{name}@1.0.1" in (
        upgraded.stdout
    )
    assert "second" in (dest / name / "SKILL.md").read_text()
    assert "is the latest version" in skillgate("upgrade", name, home=home).stdout

    (dest / name / "SKILL.md").write_text("my own edit")
    refused = skillgate("uninstall", name, home=home)
    assert refused.returncode == 1 and "has local changes (changed: SKILL.md" in refused.stderr
    removed = skillgate("uninstall", name, "--force", home=home)
    assert removed.returncode == 0, removed.stderr
    assert not (dest / name).exists()
    assert "no skills installed" in skillgate("list", home=home).stdout


def test_list_says_when_an_advisory_now_covers_what_is_installed(
    registry, author, security, home, tmp_path
):
    name = unique("helper")
    publish_skill(author, name, body=f"ok by {author}")
    bad = publish_skill(author, name, body=f"bad by {author}")
    dest = tmp_path / "skills"
    assert (
        skillgate(
            "install",
            f"{author.username}/{name}",
            "--dest",
            str(dest),
            registry=registry.url,
            home=home,
        ).returncode
        == 0
    )
    lifecycle.quarantine(bad.pk, Actor.account(security), "uploads SSH keys")

    listed = skillgate("list", home=home)
    assert listed.returncode == 5
    assert f"{author.username}/{name}@1.0.1" in listed.stdout and "quarantined" in listed.stdout
    assert "advisory: uploads SSH keys" in listed.stdout
    assert f"install {author.username}/{name}@1.0.0 instead" in listed.stdout


def test_a_skill_whose_only_version_is_quarantined_says_so_with_the_advisory(
    registry, author, security, tmp_path
):
    name = unique("lonely")
    version = publish_skill(author, name, body=f"only by {author}")
    lifecycle.quarantine(version.pk, Actor.account(security), "mines crypto")
    for spec in (f"{author.username}/{name}", name):
        refused = skillgate("install", spec, "--dest", str(tmp_path), registry=registry.url)
        if spec == name:
            # a quarantined skill is not listed, so its bare name finds nothing to install
            assert refused.returncode == 1 and f"no published skill is named {name}" in (
                refused.stderr
            )
            continue
        assert refused.returncode == 5, refused.stderr
        assert "cannot be installed: every version is quarantined" in refused.stderr
        assert "1.0.0: mines crypto" in refused.stderr
        assert "No other version" in refused.stderr
    info = skillgate("info", f"{author.username}/{name}", registry=registry.url)
    assert info.returncode == 5 and "every version is quarantined" in info.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_version_that_does_not_exist_lists_the_versions_there_are(registry, author, tmp_path):
    name = unique("versioned")
    publish_skill(author, name, body=f"one by {author}")
    second = publish_skill(author, name, body=f"two by {author}")
    lifecycle.yank(second.pk, Actor.account(author), "broken")
    refused = skillgate(
        "install", f"{author.username}/{name}@9.9.9", "--dest", str(tmp_path), registry=registry.url
    )
    assert refused.returncode == 1
    assert (
        f"{author.username}/{name} has no version 9.9.9; its versions: 1.0.1 (yanked), "
        "1.0.0 (published)" in refused.stderr
    )
    info = skillgate("info", f"{author.username}/{name}", registry=registry.url)
    assert info.returncode == 0
    assert "latest: 1.0.0" in info.stdout and "yanked: broken" in info.stdout


def test_a_wrong_registry_url_says_it_is_not_a_registry(registry, author, tmp_path):
    wrong = f"{registry.url}/admin"
    refused = skillgate("install", "someone/something", "--dest", str(tmp_path), registry=wrong)
    assert refused.returncode == 1
    assert "does not answer like a Skillgate registry" in refused.stderr


def test_an_upgrade_keeps_the_folder_the_skill_was_renamed_to(registry, author, home, tmp_path):
    name = unique("renamed")
    publish_skill(author, name, body=f"first by {author}")
    dest = tmp_path / "skills"
    installed = skillgate(
        "install",
        f"{author.username}/{name}",
        "--dest",
        str(dest),
        registry=registry.url,
        home=home,
    )
    assert installed.returncode == 0, installed.stderr
    (dest / name).rename(dest / "my-planner")
    publish_skill(author, name, body=f"second by {author}")
    upgraded = skillgate("upgrade", "--dest", str(dest), home=home)
    assert upgraded.returncode == 0, upgraded.stderr
    assert "second" in (dest / "my-planner" / "SKILL.md").read_text()
    assert sorted(p.name for p in dest.iterdir()) == ["my-planner"]
