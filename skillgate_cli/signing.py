"""Checking what the registry signed, before a byte is written (SECURITY.md says what is signed).

The registry signs each version's **verdict** and its current **status** as in-toto Statements
in DSSE envelopes (ed25519), the version's archive as their subject. The client trusts only
keys it has pinned for that registry URL, kept in ``$SKILLGATE_HOME/trusted-keys.json``
(``~/.config/skillgate`` by default):

- pinned ahead of time: ``--trust-key KEYID`` (or ``$SKILLGATE_TRUST_KEY``), the key id the
  registry's operator publishes; the keys the registry serves must include it;
- else trust on first use: the keys the registry serves the first time are pinned, with a notice
  on stderr saying so and how to check them;
- afterwards, a new key is trusted only when a pinned key endorsed it (the registry's rotation
  signs the new key with the old one); any other key is ignored, so a registry, mirror or
  attacker serving archives signed by another key is refused.

``verify`` works offline from the pinned keys and the install record.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from skillgate_cli import limits

IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json"
ENDORSEMENT_PAYLOAD_TYPE = "application/vnd.skillgate.key-endorsement+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
VERDICT_PREDICATE = "https://skillgate.dev/attestations/verdict/v1"
STATUS_PREDICATE = "https://skillgate.dev/attestations/status/v1"
STORE = "trusted-keys.json"
CLOCK_SKEW = timedelta(minutes=5)


class SignatureError(Exception):
    """What the registry sent is not signed by a key this client trusts, or says something
    else than what is being installed; nothing was written."""


Keys = dict[str, Ed25519PublicKey]


def home() -> Path:
    configured = os.environ.get("SKILLGATE_HOME")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "skillgate"


def pae(payload_type: str, payload: bytes) -> bytes:
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def key_id(raw: bytes) -> str:
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def verify_envelope(envelope: Any, keys: Keys, payload_type: str) -> bytes:
    """The payload, if ``envelope`` is a DSSE envelope of ``payload_type`` signed by one of
    ``keys``; SignatureError otherwise."""
    if not isinstance(envelope, dict) or envelope.get("payloadType") != payload_type:
        raise SignatureError("the registry's answer carries no signed statement")
    try:
        payload = base64.b64decode(str(envelope.get("payload")), validate=True)
    except ValueError as error:
        raise SignatureError("the signed statement is not valid base64") from error
    message = pae(payload_type, payload)
    signatures = envelope.get("signatures")
    for signature in signatures if isinstance(signatures, list) else []:
        if not isinstance(signature, dict):
            continue
        key = keys.get(str(signature.get("keyid")))
        if key is None:
            continue
        try:
            key.verify(base64.b64decode(str(signature.get("sig")), validate=True), message)
        except (InvalidSignature, ValueError):
            continue
        return payload
    raise SignatureError("the statement is not signed by a key this client trusts for the registry")


@dataclass(frozen=True)
class Statement:
    archive_sha256: str
    predicate: dict[str, Any]


def statement(envelope: Any, keys: Keys, predicate_type: str, ref: str) -> Statement:
    """The verified statement about ``ref`` (OWNER/NAME@VERSION) of ``predicate_type``."""
    payload = verify_envelope(envelope, keys, IN_TOTO_PAYLOAD_TYPE)
    try:
        document = limits.loads(payload, "the signed statement")
        subject = document["subject"][0]
        digest = str(subject["digest"]["sha256"])
        predicate = document["predicate"]
        kind = document["_type"], document["predicateType"]
    except (ValueError, KeyError, IndexError, TypeError) as error:
        raise SignatureError("the signed statement is malformed") from error
    if kind != (STATEMENT_TYPE, predicate_type) or not isinstance(predicate, dict):
        raise SignatureError("the signed statement is not the one expected")
    signed_ref = f"{predicate.get('skill')}@{predicate.get('version')}"
    if signed_ref != ref or subject.get("name") != f"{ref}.tar.gz":
        raise SignatureError(f"the signed statement is about {signed_ref}, not {ref}")
    return Statement(digest, predicate)


def fresh_status(status: Statement, now: datetime | None = None) -> str:
    """The signed status, refused when it is not current (a stale mirror, a replay)."""
    now = now or datetime.now(UTC)
    try:
        issued = datetime.fromisoformat(str(status.predicate["issued_at"]))
        valid_until = datetime.fromisoformat(str(status.predicate["valid_until"]))
    except (KeyError, ValueError) as error:
        raise SignatureError("the signed status has no valid time") from error
    if issued > now + CLOCK_SKEW or valid_until < now:
        raise SignatureError(
            f"the signed status was issued at {issued.isoformat()} and is valid until "
            f"{valid_until.isoformat()}: it is not current (a stale mirror or a replay?)"
        )
    return str(status.predicate.get("status"))


def bundle_sha256(files: dict[str, bytes]) -> str:
    """The registry's canonical sha256 of a set of files."""
    return bundle_sha256_of_hashes(
        {path: hashlib.sha256(content).hexdigest() for path, content in files.items()}
    )


def bundle_sha256_of_hashes(hashes: dict[str, str]) -> str:
    """The same from each file's sha256 (path, NUL, sha256 hex, newline, sorted by path)."""
    digest = hashlib.sha256()
    for path in sorted(hashes):
        digest.update(f"{path}\0{hashes[path]}\n".encode())
    return digest.hexdigest()


# --- Which keys are trusted for a registry ---------------------------------------------------


def _parse_keys(document: Any) -> dict[str, tuple[bytes, Any]]:
    """The served keys by id (raw public key, endorsement); ids are checked against the keys."""
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise SignatureError("the registry's key list is malformed")
    keys: dict[str, tuple[bytes, Any]] = {}
    for entry in document["keys"]:
        try:
            raw = base64.b64decode(str(entry["public_key"]), validate=True)
            Ed25519PublicKey.from_public_bytes(raw)
        except (KeyError, TypeError, ValueError):
            continue
        if entry.get("keyid") == key_id(raw):
            keys[key_id(raw)] = (raw, entry.get("endorsement"))
    return keys


def _load_store() -> dict[str, dict[str, str]]:
    path = home() / STORE
    try:
        data = limits.loads(limits.read_file(path), str(path), limits.MAX_RECORD_BYTES)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise SignatureError(f"cannot read the trusted keys in {path}: {error}") from error
    return data if isinstance(data, dict) else {}


def _save_store(store: dict[str, dict[str, str]]) -> Path:
    path = home() / STORE
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{STORE}.tmp")
    temporary.write_text(json.dumps(store, indent=2, sort_keys=True) + "\n")
    os.replace(temporary, path)
    return path


def pinned_keys(registry_url: str) -> Keys:
    """The keys pinned for the registry (offline)."""
    pinned = _load_store().get(registry_url, {})
    return {kid: _public(raw) for kid, raw in pinned.items()}


def trusted_keys(
    registry_url: str,
    fetch_keys: Callable[[], Any],
    notify: Callable[[str], None],
    trust_key: str | None = None,
) -> Keys:
    """The keys to check the registry's statements with, pinning them as described above."""
    store = _load_store()
    pinned = dict(store.get(registry_url, {}))
    served = _parse_keys(fetch_keys())
    if not pinned:
        if trust_key:
            if trust_key not in served:
                raise SignatureError(
                    f"the registry at {registry_url} does not serve the key {trust_key} you trust"
                )
            pinned = {trust_key: _b64(served[trust_key][0])}
        else:
            pinned = {kid: _b64(raw) for kid, (raw, _) in served.items()}
            notify(
                f"notice: first use of the registry {registry_url}: trusting its signing "
                f"key(s) {', '.join(sorted(pinned))} (trust on first use, pinned in "
                f"{home() / STORE}). Check them with the registry's operator, or pin one ahead "
                "of time with --trust-key."
            )
    added = _follow_endorsements(pinned, served)
    if added:
        notify(
            f"notice: the registry {registry_url} rotated its signing key: now also trusting "
            f"{', '.join(sorted(added))}, endorsed by a key already trusted"
        )
    if store.get(registry_url) != pinned:
        store[registry_url] = pinned
        _save_store(store)
    return {kid: _public(raw) for kid, raw in pinned.items()}


def _follow_endorsements(pinned: dict[str, str], served: dict[str, tuple[bytes, Any]]) -> list[str]:
    """Add to ``pinned`` every served key endorsed, directly or through others, by a pinned
    key; returns the ids added."""
    added: list[str] = []
    progress = True
    while progress:
        progress = False
        trusted = {kid: _public(raw) for kid, raw in pinned.items()}
        for kid, (raw, endorsement) in served.items():
            if kid in pinned or endorsement is None:
                continue
            try:
                claim = limits.loads(
                    verify_envelope(endorsement, trusted, ENDORSEMENT_PAYLOAD_TYPE),
                    "a key endorsement",
                )
            except (SignatureError, ValueError):
                continue
            if (
                isinstance(claim, dict)
                and claim.get("keyid") == kid
                and (claim.get("public_key") == _b64(raw))
            ):
                pinned[kid] = _b64(raw)
                added.append(kid)
                progress = True
    return added


def _public(raw_b64: str) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(base64.b64decode(raw_b64))


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")
