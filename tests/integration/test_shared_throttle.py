"""Issue 9 item 14: the submission throttle is shared by every web process.

With a per-process cache each gunicorn worker granted the full rate (240 of 300 submissions got
through in 1.6 s). The count now lives in the database cache: new processes, after a restart of
the real gunicorn, still see the submissions the old ones counted.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from rest_framework.authtoken.models import Token

from tests.support.skills import benign_files
from tests.support.stack import WebServer, stack_environment

pytestmark = pytest.mark.integration
RATE = 3


def submit(web: WebServer, token: str, n: int) -> int:
    request = urllib.request.Request(
        f"{web.url}/api/v1/submissions",
        data=json.dumps({"files": benign_files(f"throttled-{n}")}).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_the_throttle_survives_a_restart_of_every_web_process(live_db, broker, author):
    token = Token.objects.create(user=author).key
    env = stack_environment(SKILLGATE_SUBMISSION_RATE=f"{RATE}/hour")
    first = WebServer(env)
    first.start()
    try:
        accepted = [submit(first, token, n) for n in range(RATE)]
    finally:
        first.stop()
    second = WebServer(env)
    second.start()
    try:
        after_restart = submit(second, token, RATE)
    finally:
        second.stop()
    assert accepted == [201] * RATE
    assert after_restart == 429
