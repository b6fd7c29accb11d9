"""Issue 21 items 5, 7, 8 for the client: ``skillgate`` installs only what a pinned key signed,
refuses plain http except to this machine, prints nobody's control characters, and answers
hostile JSON with a message and exit 1."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from skillgate_cli import limits
from skillgate_cli import registry as registry_module
from skillgate_cli.output import Printer
from skillgate_cli.signing import SignatureError, Statement, fresh_status
from tests.support.cli import ROOT, skillgate
from tests.support.fake_registry import Entry, FakeRegistry, tar_gz

GOOD = {"SKILL.md": b"---\nname: evil\ndescription: fine\n---\nBody\n"}


@pytest.fixture
def fake():
    servers: list[FakeRegistry] = []

    def start(**options) -> FakeRegistry:
        archive = tar_gz([Entry(path, data) for path, data in GOOD.items()])
        server = FakeRegistry(archive, GOOD, **options).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def install(url: str, dest, *extra: str):
    return skillgate("install", "mallory/evil", "--dest", str(dest), *extra, registry=url)


def test_first_use_pins_the_key_with_a_notice_and_a_re_signed_archive_is_then_refused(
    fake, tmp_path
):
    registry = fake()
    first = install(registry.url, tmp_path / "one")
    assert first.returncode == 0, first.stderr
    assert "notice: first use of the registry" in first.stderr
    assert "trust on first use" in first.stderr

    registry.resign(Ed25519PrivateKey.generate())  # a mirror or attacker with another key
    again = install(registry.url, tmp_path / "two")
    assert again.returncode == 1
    assert "not signed by a key this client trusts" in again.stderr
    assert not (tmp_path / "two").exists()


def test_an_unsigned_registry_is_refused_before_a_byte_is_written(fake, tmp_path):
    registry = fake(signed=False)
    result = install(registry.url, tmp_path)
    assert result.returncode == 1
    assert "no signed verdict" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_pinned_key_id_that_the_registry_does_not_serve_is_refused(fake, tmp_path):
    registry = fake()
    result = install(registry.url, tmp_path, "--trust-key", "sha256:" + "0" * 64)
    assert result.returncode == 1 and "does not serve the key" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_signed_quarantine_is_refused_by_install(fake, tmp_path):
    registry = fake(status="quarantined")
    result = install(registry.url, tmp_path)
    assert result.returncode == 5 and "is quarantined: do not use it" in result.stderr


def test_a_stale_signed_status_is_refused():
    issued = datetime.now(UTC) - timedelta(days=3)
    stale = Statement(
        "0" * 64,
        {
            "status": "published",
            "issued_at": issued.isoformat(),
            "valid_until": (issued + timedelta(days=1)).isoformat(),
        },
    )
    with pytest.raises(SignatureError, match="not current"):
        fresh_status(stale)


def test_plain_http_is_refused_except_to_this_machine(tmp_path):
    """0.0.0.0 is not a loopback address, so it is refused; were the rule ever broken, the
    attempt would still reach only this machine (tests send traffic nowhere else)."""
    result = skillgate("install", "a/b", "--dest", str(tmp_path), "--registry", "http://0.0.0.0:9")
    assert result.returncode == 1 and "refusing plain http to 0.0.0.0" in result.stderr
    assert not registry_module.is_loopback("0.0.0.0")
    assert not registry_module.is_loopback("10.0.0.7") and not registry_module.is_loopback("a.b")
    assert registry_module.is_loopback("127.0.0.2") and registry_module.is_loopback("::1")
    assert registry_module.is_loopback("localhost")


def test_verify_rechecks_the_signature_and_the_files_offline(fake, tmp_path):
    registry = fake()
    assert install(registry.url, tmp_path).returncode == 0
    registry.stop()
    folder = tmp_path / "evil"
    offline = skillgate("verify", "--offline", str(folder))
    assert offline.returncode == 0, offline.stdout + offline.stderr
    assert "verified offline" in offline.stdout

    (folder / "SKILL.md").write_bytes(b"changed")
    assert skillgate("verify", "--offline", str(folder)).returncode == 3

    (folder / "SKILL.md").write_bytes(GOOD["SKILL.md"])
    record = json.loads((folder / ".skillgate.json").read_text())
    record["verdict"]["signatures"][0]["sig"] = record["verdict"]["signatures"][0]["sig"][::-1]
    (folder / ".skillgate.json").write_text(json.dumps(record))
    forged = skillgate("verify", "--offline", str(folder))
    assert forged.returncode == 1 and "does not verify" in forged.stderr


# --- item 8: hostile JSON ---------------------------------------------------------------


def test_200000_nested_brackets_end_with_a_message_not_a_traceback(fake, tmp_path):
    registry = fake()
    registry.routes[f"{registry.base}/versions/1.0.0"] = ("application/json", "[" * 200_000)
    result = install(registry.url, tmp_path)
    assert result.returncode == 1
    assert "nested deeper than 64 levels" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_oversized_or_deep_install_record_is_refused(tmp_path):
    folder = tmp_path / "skill"
    folder.mkdir()
    (folder / ".skillgate.json").write_text("[" * 100_000)
    result = skillgate("verify", "--offline", str(folder))
    assert result.returncode == 1 and "nested deeper" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_depth_scan_ignores_brackets_inside_strings():
    assert limits.nesting_depth(b'{"a": "[[[[[[", "b": [1, [2]]}') == 3
    assert limits.loads('{"a": "\\"[[["}', "x") == {"a": '"[[['}


# --- item 7: control characters never reach the terminal --------------------------------


def test_control_characters_are_escaped_in_every_line_the_cli_prints():
    """Even a message no command passed through ``shown`` is escaped by the printer."""
    out, err = io.StringIO(), io.StringIO()
    printer = Printer(out, err)
    hostile = "breaks on Windows\x1b[1A\x1b[2K\rinstalled safely\u202e\x9b"
    printer.say(hostile)
    printer.note(hostile)
    for cleaned in (out.getvalue(), err.getvalue()):
        assert "\x1b" not in cleaned and "\r" not in cleaned and "\u202e" not in cleaned
        assert "\\x1b[1A" in cleaned and "\\x0d" in cleaned and "\\u202e" in cleaned
    printer.say("line one\n\tindented")
    assert out.getvalue().endswith("line one\n\tindented\n")


def test_a_yank_reason_with_terminal_escapes_is_printed_escaped(fake, tmp_path):
    registry = fake(status="yanked")
    detail = json.loads(registry.routes[f"{registry.base}/versions/1.0.0"][1])
    detail["status_reason"] = "old\x1b[1A\x1b[2Kall good"
    registry.routes[f"{registry.base}/versions/1.0.0"] = ("application/json", json.dumps(detail))
    result = install(registry.url, tmp_path, "--dest", str(tmp_path / "x"))
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "old\\x1b[1A\\x1b[2Kall good" in result.stdout


def test_the_client_needs_only_the_standard_library_and_cryptography():
    probe = (
        "import sys; import skillgate_cli.main, skillgate_cli.signing; "
        "print('\\n'.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    modules = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    allowed = set(sys.stdlib_module_names) | {"skillgate_cli", "cryptography", "_cffi_backend"}
    assert [m for m in modules if m not in allowed and not m.startswith("_")] == []
