"""The registry's signing keys and DSSE envelopes (ed25519, via ``cryptography``).

What is signed, and how a client checks it, is in SECURITY.md; the statements themselves are
built by ``registry.attestations``. Here: the keys and the envelope.

Keys live in one folder (``SKILLGATE_SIGNING_KEY_DIR``; ``var/secrets/signing`` by default):

    current.pem     the private key that signs now (PKCS#8 PEM, mode 0600)
    keyring.json    every public key ever used, current and retired, each with its key id and,
                    from the second on, an *endorsement*: a DSSE envelope in which the key
                    before it signs the new key's id and public key

A local run (or the test suite) creates the folder and a first key on first use. In production
(``SKILLGATE_SIGNING_KEY_GENERATE=false``, the default when HTTPS is on) the folder is mounted
from a secret store and a missing key is an error, never a silent new identity.

``manage.py rotate_signing_key`` makes a new key current: the old key endorses it, its private
half is deleted, its public half stays in the keyring, so everything it signed still verifies
and a client that pinned it can follow the chain to the new key.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json"
ENDORSEMENT_PAYLOAD_TYPE = "application/vnd.skillgate.key-endorsement+json"
CURRENT_KEY = "current.pem"
KEYRING = "keyring.json"


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE's pre-authentication encoding: what the signature covers."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def key_id(public_key: Ed25519PublicKey) -> str:
    """``sha256:`` and the hex sha256 of the raw 32-byte public key."""
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def public_b64(public_key: Ed25519PublicKey) -> str:
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode("ascii")


def envelope(payload_type: str, payload: bytes, private_key: Ed25519PrivateKey) -> dict[str, Any]:
    signature = private_key.sign(pae(payload_type, payload))
    return {
        "payloadType": payload_type,
        "payload": base64.b64encode(payload).decode("ascii"),
        "signatures": [
            {
                "keyid": key_id(private_key.public_key()),
                "sig": base64.b64encode(signature).decode("ascii"),
            }
        ],
    }


def verify(document: dict[str, Any], public_keys: dict[str, Ed25519PublicKey]) -> bytes:
    """The payload of ``document`` if one of its signatures is by one of ``public_keys`` (by
    key id); ValueError otherwise."""
    payload = base64.b64decode(document["payload"], validate=True)
    message = pae(document["payloadType"], payload)
    for signature in document.get("signatures", []):
        key = public_keys.get(signature.get("keyid"))
        if key is None:
            continue
        try:
            key.verify(base64.b64decode(signature["sig"], validate=True), message)
        except InvalidSignature:
            continue
        return payload
    raise ValueError("no valid signature by a known key")


@dataclass(frozen=True)
class Keyring:
    """The current private key and every public key, current first."""

    current: Ed25519PrivateKey
    entries: tuple[dict[str, Any], ...]

    @property
    def current_id(self) -> str:
        return key_id(self.current.public_key())

    def document(self) -> dict[str, Any]:
        """What ``/.well-known/skillgate/keys.json`` serves."""
        return {
            "current": self.current_id,
            "algorithm": "ed25519",
            "envelope": "DSSE v1 over an in-toto Statement v1",
            "keys": list(self.entries),
        }

    def sign(self, payload_type: str, payload: bytes) -> dict[str, Any]:
        return envelope(payload_type, payload, self.current)


_lock = threading.Lock()
_cache: dict[Path, tuple[float, Keyring]] = {}


def keyring() -> Keyring:
    """The keyring in the configured folder (read again when a rotation changed it), created
    with a first key where that is allowed."""
    folder = Path(settings.SKILLGATE_SIGNING_KEY_DIR)
    with _lock:
        current = folder / CURRENT_KEY
        if not current.is_file():
            if not settings.SKILLGATE_SIGNING_KEY_GENERATE:
                raise ImproperlyConfigured(
                    f"no signing key in {folder}: mount the registry's key folder there (set "
                    "SKILLGATE_SIGNING_KEY_DIR), or SKILLGATE_SIGNING_KEY_GENERATE=true to "
                    "create a new one (a new identity: clients that pinned the old one refuse it)"
                )
            _create_first_key(folder)
        stamp = max((folder / name).stat().st_mtime_ns for name in (CURRENT_KEY, KEYRING))
        cached = _cache.get(folder)
        if cached is None or cached[0] != stamp:
            cached = (stamp, _load(folder))
            _cache[folder] = cached
        return cached[1]


def ensure_key() -> bool:
    """Create the first key when the folder has none, whatever SKILLGATE_SIGNING_KEY_GENERATE
    says (an operator's explicit step: ``rotate_signing_key --init``); True when created."""
    folder = Path(settings.SKILLGATE_SIGNING_KEY_DIR)
    with _lock:
        if (folder / CURRENT_KEY).is_file():
            return False
        _create_first_key(folder)
        return True


def rotate() -> tuple[str, str]:
    """Make a new key current, endorsed by the old one, whose private half is deleted; returns
    (old key id, new key id)."""
    old = keyring()
    folder = Path(settings.SKILLGATE_SIGNING_KEY_DIR)
    new_key = Ed25519PrivateKey.generate()
    new_id = key_id(new_key.public_key())
    claim = json.dumps(
        {"keyid": new_id, "public_key": public_b64(new_key.public_key())}, sort_keys=True
    ).encode("utf-8")
    now = _now()
    entries = []
    for entry in old.entries:
        if entry["keyid"] == old.current_id:
            entry = {**entry, "status": "retired", "retired_at": now}
        entries.append(entry)
    entries.insert(
        0,
        {
            "keyid": new_id,
            "public_key": public_b64(new_key.public_key()),
            "status": "current",
            "created_at": now,
            "endorsement": old.sign(ENDORSEMENT_PAYLOAD_TYPE, claim),
        },
    )
    with _lock:
        _write_keyring(folder, entries)
        _write_private(folder / CURRENT_KEY, new_key)
        _cache.pop(folder, None)
    return old.current_id, new_id


def _create_first_key(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = Ed25519PrivateKey.generate()
    entry = {
        "keyid": key_id(key.public_key()),
        "public_key": public_b64(key.public_key()),
        "status": "current",
        "created_at": _now(),
    }
    _write_keyring(folder, [entry])
    _write_private(folder / CURRENT_KEY, key)


def _load(folder: Path) -> Keyring:
    private = serialization.load_pem_private_key((folder / CURRENT_KEY).read_bytes(), None)
    if not isinstance(private, Ed25519PrivateKey):
        raise ImproperlyConfigured(f"{folder / CURRENT_KEY} is not an ed25519 private key")
    entries = json.loads((folder / KEYRING).read_text())["keys"]
    current = key_id(private.public_key())
    if not any(entry["keyid"] == current for entry in entries):
        raise ImproperlyConfigured(f"the key in {folder / CURRENT_KEY} is not in {KEYRING}")
    return Keyring(private, tuple(sorted(entries, key=lambda e: e["keyid"] != current)))


def _write_keyring(folder: Path, entries: list[dict[str, Any]]) -> None:
    temporary = folder / f".{KEYRING}.tmp"
    temporary.write_text(json.dumps({"keys": entries}, indent=2) + "\n")
    os.replace(temporary, folder / KEYRING)


def _write_private(path: Path, key: Ed25519PrivateKey) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
    os.replace(temporary, path)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
