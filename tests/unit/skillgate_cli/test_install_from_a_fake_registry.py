"""``skillgate install`` against a registry that serves what the test wants, hostile archives
included: nothing is ever written outside --dest, nothing half-installed is left behind, and
every refusal says why with a non-zero exit code."""

from __future__ import annotations

import json
import tomllib
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from threading import Thread

import pytest

from skillgate_cli import main as cli_main
from tests.support.cli import ROOT, skillgate
from tests.support.fake_registry import Entry, FakeRegistry, tar_gz

GOOD = {"SKILL.md": b"---\nname: evil\ndescription: fine\n---\nBody\n", "scripts/a.sh": b"echo\n"}


@pytest.fixture
def serve():
    servers: list[FakeRegistry] = []

    def start(entries: list[Entry], files: dict[str, bytes] | None = None, **options) -> str:
        archive = tar_gz(entries)
        server = FakeRegistry(archive, files if files is not None else {}, **options).start()
        servers.append(server)
        return server.url

    yield start
    for server in servers:
        server.stop()


def good_entries() -> list[Entry]:
    return [Entry(path, data) for path, data in GOOD.items()]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_good_archive_installs_into_dest_name_with_its_record(serve, tmp_path):
    url = serve(good_entries(), GOOD)
    result = skillgate("install", "mallory/evil", "--dest", str(tmp_path), registry=url)
    assert result.returncode == 0, result.stderr
    assert "installed mallory/evil@1.0.0 into" in result.stdout
    installed = tmp_path / "evil"
    assert (installed / "scripts/a.sh").read_bytes() == b"echo\n"
    record = json.loads((installed / ".skillgate.json").read_text())
    assert (record["registry"], record["owner"], record["name"], record["version"]) == (
        url,
        "mallory",
        "evil",
        "1.0.0",
    )
    assert leftovers(tmp_path) == ["evil"]


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        (Entry("../escape.txt", b"owned"), "'..' segment"),
        (Entry("scripts/../../escape.txt", b"owned"), "'..' segment"),
        (Entry("link", kind=b"2", target="../escape.txt"), "symbolic link"),
        (Entry("NUL", b"x"), "named after a device"),
    ],
)
def test_a_hostile_archive_is_refused_and_nothing_is_written(serve, tmp_path, entry, says):
    dest = tmp_path / "dest"
    url = serve([*good_entries(), entry], GOOD)
    result = skillgate("install", "mallory/evil", "--dest", str(dest), "--registry", url)
    assert result.returncode == 1
    assert "refusing the archive of mallory/evil@1.0.0" in result.stderr and says in result.stderr
    assert not (tmp_path / "escape.txt").exists()
    assert leftovers(dest) == []


def test_an_absolute_path_in_the_archive_is_refused(serve, tmp_path):
    target = tmp_path / "absolute.txt"
    url = serve([*good_entries(), Entry(str(target), b"owned")], GOOD)
    result = skillgate("install", "mallory/evil", "--dest", str(tmp_path / "dest"), registry=url)
    assert result.returncode == 1 and "absolute path" in result.stderr
    assert not target.exists()


def test_an_archive_whose_sha256_is_not_the_published_one_is_refused(serve, tmp_path):
    url = serve(good_entries(), GOOD, archive_sha256="f" * 64)
    result = skillgate("install", "mallory/evil", "--dest", str(tmp_path), registry=url)
    assert result.returncode == 1
    assert "does not match the sha256 the registry publishes" in result.stderr
    assert leftovers(tmp_path) == []


def test_an_archive_that_is_not_the_listed_files_is_refused(serve, tmp_path):
    url = serve([*good_entries(), Entry("extra.py", b"import os")], GOOD)
    result = skillgate("install", "mallory/evil", "--dest", str(tmp_path), registry=url)
    assert result.returncode == 1 and "does not hold the files the registry lists" in result.stderr
    assert leftovers(tmp_path) == []


def test_an_archive_carrying_the_install_record_is_refused(serve, tmp_path):
    files = {**GOOD, ".skillgate.json": b"{}"}
    url = serve([Entry(p, d) for p, d in files.items()], files)
    result = skillgate("install", "mallory/evil", "--dest", str(tmp_path), registry=url)
    assert result.returncode == 1 and "which the installer reserves" in result.stderr


def test_an_existing_folder_is_replaced_only_with_force(serve, tmp_path):
    url = serve(good_entries(), GOOD)
    mine = tmp_path / "evil"
    mine.mkdir()
    (mine / "notes.txt").write_text("my own work")

    refused = skillgate("install", "mallory/evil", "--dest", str(tmp_path), registry=url)
    assert refused.returncode == 1 and "already exists; pass --force" in refused.stderr
    assert (mine / "notes.txt").read_text() == "my own work"

    forced = skillgate("install", "mallory/evil", "--dest", str(tmp_path), "--force", registry=url)
    assert forced.returncode == 0, forced.stderr
    assert not (mine / "notes.txt").exists() and (mine / "SKILL.md").exists()
    assert leftovers(tmp_path) == ["evil"]


def test_force_replaces_a_symlink_without_following_it(serve, tmp_path):
    url = serve(good_entries(), GOOD)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("not yours")
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "evil").symlink_to(elsewhere)

    result = skillgate("install", "mallory/evil", "--dest", str(dest), "--force", registry=url)
    assert result.returncode == 0, result.stderr
    assert (elsewhere / "keep.txt").read_text() == "not yours"
    assert not (dest / "evil").is_symlink() and (dest / "evil/SKILL.md").exists()


@pytest.mark.parametrize(
    "spec", ["mallory/../evil", "mallory/Evil", "mallory/evil@1.0/..", "/etc/passwd", "a/b/c"]
)
def test_a_malformed_spec_is_a_usage_error(spec, tmp_path):
    result = skillgate("install", spec, "--dest", str(tmp_path), registry="http://127.0.0.1:9")
    assert result.returncode == 2 and "is not [OWNER/]NAME[@VERSION|@latest]" in result.stderr
    assert leftovers(tmp_path) == []


def test_a_bare_name_is_the_one_published_skill_of_that_name(serve, tmp_path):
    url = serve(good_entries(), GOOD)
    result = skillgate("install", "evil@latest", "--dest", str(tmp_path), registry=url)
    assert result.returncode == 0, result.stderr
    assert "installed mallory/evil@1.0.0" in result.stdout


def test_installed_folders_get_the_modes_a_shell_would_give_them(serve, tmp_path):
    url = serve(good_entries(), GOOD)
    assert (
        skillgate("install", "mallory/evil", "--dest", str(tmp_path), registry=url).returncode == 0
    )
    installed = tmp_path / "evil"
    assert oct(installed.stat().st_mode & 0o777) == "0o755"
    assert oct((installed / "scripts").stat().st_mode & 0o777) == "0o755"
    assert oct((installed / "SKILL.md").stat().st_mode & 0o777) == "0o644"


def test_an_unreachable_or_malformed_registry_fails_cleanly(tmp_path):
    down = skillgate("install", "a/b", "--dest", str(tmp_path), "--registry", "http://127.0.0.1:9")
    assert down.returncode == 1 and "cannot reach the registry at http://127.0.0.1:9" in down.stderr
    ftp = skillgate("install", "a/b", "--dest", str(tmp_path), "--registry", "ftp://example")
    assert ftp.returncode == 1 and "must be http:// or https://" in ftp.stderr


def test_an_unknown_skill_is_not_found(serve, tmp_path):
    url = serve(good_entries(), GOOD)
    result = skillgate("install", "mallory/other", "--dest", str(tmp_path), registry=url)
    assert result.returncode == 1
    assert f"skill mallory/other is not in the registry at {url}" in result.stderr
    assert "skillgate search other" in result.stderr


class NotARegistry(BaseHTTPRequestHandler):
    """Some other web site: every path is a page that is not there."""

    def do_GET(self) -> None:
        body = b"<html>Not here</html>"
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_url_that_is_no_registry_says_so(tmp_path):
    server = HTTPServer(("127.0.0.1", 0), NotARegistry)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        result = skillgate("install", "mallory/evil", "--dest", str(tmp_path), registry=url)
    finally:
        server.shutdown()
        server.server_close()
    assert result.returncode == 1
    assert f"{url} does not answer like a Skillgate registry" in result.stderr
    assert "check --registry or SKILLGATE_URL" in result.stderr


def test_verify_needs_a_folder_installed_by_skillgate(tmp_path):
    result = skillgate("verify", str(tmp_path))
    assert result.returncode == 1 and "was not installed by skillgate" in result.stderr


def test_the_console_script_is_declared_and_points_at_main():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["scripts"] == {"skillgate": "skillgate_cli.main:main"}
    assert "skillgate_cli*" in project["tool"]["setuptools"]["packages"]["find"]["include"]
    assert callable(cli_main.main)
