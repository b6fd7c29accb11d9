"""Issue 21 item 5, the registry's side: each published version's verdict and status are DSSE
envelopes over in-toto Statements about its archive, signed with ed25519; the public keys are
served at a well-known URL; a rotation keeps the old key for verification, endorsing the new."""

from __future__ import annotations

import base64
import json

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.test import Client

from registry import archives, lifecycle, signing
from registry.lifecycle import Actor
from skillgate_cli import signing as client_signing
from tests.support.versions import make_security, publish_skill

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def key_folder(tmp_path, settings):
    settings.SKILLGATE_SIGNING_KEY_DIR = tmp_path / "signing"
    settings.SKILLGATE_SIGNING_KEY_GENERATE = True
    return settings.SKILLGATE_SIGNING_KEY_DIR


def served_keys() -> dict:
    return Client().get("/.well-known/skillgate/keys.json").json()


def public_keys(document: dict) -> client_signing.Keys:
    return {
        entry["keyid"]: client_signing._public(entry["public_key"]) for entry in document["keys"]
    }


def statement(envelope: dict, keys: client_signing.Keys) -> dict:
    payload = client_signing.verify_envelope(envelope, keys, signing.IN_TOTO_PAYLOAD_TYPE)
    return json.loads(payload)


def test_a_versions_verdict_and_status_are_signed_statements_about_its_archive(make_user):
    author = make_user()
    version = publish_skill(author)
    detail = Client().get(f"/api/v1/skills/{author.username}/note-taker/versions/1.0.0").json()
    keys = public_keys(served_keys())

    verdict = statement(detail["attestations"]["verdict"], keys)
    assert verdict["_type"] == "https://in-toto.io/Statement/v1"
    assert verdict["subject"] == [
        {
            "name": f"{author.username}/note-taker@1.0.0.tar.gz",
            "digest": {"sha256": archives.sha256_of(version.bundle.as_bundle())},
        }
    ]
    predicate = verdict["predicate"]
    assert (predicate["skill"], predicate["version"], predicate["bundle_sha256"]) == (
        f"{author.username}/note-taker",
        "1.0.0",
        version.bundle_id,
    )
    assert predicate["outcome"]["channel"] == "automatic"
    assert {"catalogue_version", "judge_version", "published_at"} <= set(predicate)
    status = statement(detail["attestations"]["status"], keys)
    assert status["predicate"]["status"] == "published"
    assert status["predicate"]["valid_until"] > status["predicate"]["issued_at"]


def test_a_quarantine_is_in_the_signed_status(make_user):
    author = make_user()
    version = publish_skill(author)
    lifecycle.quarantine(version.pk, Actor.account(make_security(make_user("sven"))), "bad")
    detail = Client().get(f"/api/v1/skills/{author.username}/note-taker/versions/1.0.0").json()
    status = statement(detail["attestations"]["status"], public_keys(served_keys()))
    assert (status["predicate"]["status"], status["predicate"]["reason"]) == ("quarantined", "bad")


def test_a_tampered_statement_does_not_verify(make_user):
    author = make_user()
    publish_skill(author)
    detail = Client().get(f"/api/v1/skills/{author.username}/note-taker/versions/1.0.0").json()
    envelope = detail["attestations"]["verdict"]
    payload = json.loads(base64.b64decode(envelope["payload"]))
    payload["predicate"]["version"] = "9.9.9"
    envelope["payload"] = base64.b64encode(json.dumps(payload).encode()).decode()
    with pytest.raises(client_signing.SignatureError):
        statement(envelope, public_keys(served_keys()))


def test_rotation_keeps_the_old_key_and_endorses_the_new_one(make_user, key_folder):
    author = make_user()
    publish_skill(author)
    url = f"/api/v1/skills/{author.username}/note-taker/versions/1.0.0"
    before = Client().get(url).json()["attestations"]["verdict"]
    old = served_keys()["current"]

    call_command("rotate_signing_key")

    document = served_keys()
    assert document["current"] != old
    assert [(k["keyid"], k["status"]) for k in document["keys"]] == [
        (document["current"], "current"),
        (old, "retired"),
    ]
    assert statement(before, public_keys(document))  # the old key still verifies
    pinned = {old: document["keys"][1]["public_key"]}
    served = client_signing._parse_keys(document)
    assert client_signing._follow_endorsements(pinned, served) == [document["current"]]
    assert signing.keyring().current_id == document["current"]  # the old private key is gone
    after = Client().get(url).json()["attestations"]["verdict"]
    assert after["signatures"][0]["keyid"] == document["current"]


def test_production_never_generates_a_key_silently(settings, tmp_path):
    settings.SKILLGATE_SIGNING_KEY_DIR = tmp_path / "empty"
    settings.SKILLGATE_SIGNING_KEY_GENERATE = False
    with pytest.raises(ImproperlyConfigured, match="no signing key"):
        signing.keyring()
    call_command("rotate_signing_key", "--init")  # the operator's explicit first key
    assert signing.keyring().current_id.startswith("sha256:")
