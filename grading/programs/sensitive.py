"""What a program touches that matters: sensitive paths and names, network tools, decoders.

Shared by the Python, shell and JavaScript analyses so that "a secret source" means the same
thing in every language: credential and key stores, browser profiles, wallets, agent auth files
and session logs, shell history, the environment.
"""

from __future__ import annotations

import hashlib
import re

from grading import linear

SENSITIVE_PATH = linear.compile(
    r"(?i)(?:^|[/\\~.\s\"'])(?:"
    r"\.ssh(?:/|\\|$)|id_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws(?:/|\\|$)|aws/credentials|\.azure(?:/|\\|$)"
    r"|\.config/gcloud|gcloud/(?:credentials|application_default)|\.kube(?:/|\\|$)|kubeconfig"
    r"|\.gnupg|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.docker/config\.json|\.env\b"
    r"|login data|cookies(?:\.sqlite)?\b|key[34]\.db|logins\.json|local state|web data"
    r"|google/chrome|chromium|brave-browser|mozilla/firefox|firefox/profiles|microsoft/edge"
    r"|user data/"
    r"|wallet\.dat|\.electrum|\.bitcoin|\.ethereum|keystore|exodus|metamask|phantom|solana/id\.json"
    r"|\.claude(?:/|\\|\.json|$)|\.codex(?:/|\\|$)|\.cursor(?:/|\\|$)|\.openclaw|\.clawdbot"
    r"|history\.jsonl"
    r"|sessions?/[^\s]*\.jsonl|\.bash_history|\.zsh_history|\.python_history|keychains?(?:/|\\|$)"
    r"|\.password-store|\.vault-token|\.terraform\.d/credentials|\.config/gh/hosts\.yml"
    r"|\.gem/credentials|\.cargo/credentials|\.composer/auth\.json"
    r"|\.m2/settings(?:-security)?\.xml|\.gradle/gradle\.properties|\.ivy2/\.credentials"
    r"|\.sbt/\.credentials|serviceaccount/token\b"
    r"|proc/[\w$]{1,12}/environ\b"
    r"|etc/shadow\b|kubernetes/pki\b|kubelet/pki\b|kubernetes/admin\.conf"
    r")"
)
"""Credential, key, browser, wallet and agent stores (their path or a distinctive part of it),
package registries' and build tools' publishing credentials (``~/.npmrc``,
``~/.gem/credentials``, ``~/.cargo/credentials``, Maven's ``~/.m2/settings.xml``, Gradle's
user-level ``~/.gradle/gradle.properties``), a pod's service-account token, a process's
environment read as a file (``/proc/self/environ``), and a machine's own secrets as a
container mounting its root reads them (``/host/etc/shadow``, a cluster's keys under
``/etc/kubernetes/pki``)."""

SECRET_NAME = linear.compile(
    r"(?i)(?:token|secret|passw(?:or)?d|passphrase|api[_-]?key|access[_-]?key|private[_-]?key"
    r"|credential|auth|session|cookie|mnemonic|seed)"
)
"""Names of environment variables or fields that hold a secret."""

SEED_FIELD = linear.compile(
    r"(?i)^(?:mnemonic|seed|seed[_ -]?(?:phrase|words?)|recovery[_ -]?(?:phrase|words?)"
    r"|secret[_ -]?(?:phrase|recovery[_ -]?phrase)|wallet[_ -]?(?:seed|phrase|mnemonic))$"
)
"""A field that holds a wallet's seed phrase: whatever a program puts there is the key to the
wallet, and a request that carries it hands the wallet to the host (no service needs it: a
wallet's history is read by its addresses)."""

NETWORK_TOOLS = frozenset(
    {"curl", "wget", "nc", "ncat", "netcat", "socat", "scp", "rsync", "sftp", "ftp", "telnet",
     "ssh", "dig", "nslookup", "host", "invoke-webrequest", "invoke-restmethod", "iwr", "irm"}
)  # fmt: skip
INTERPRETERS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "python", "python3", "python2", "node", "perl", "ruby",
     "php", "pwsh", "powershell", "iex", "invoke-expression", "source", "."}
)  # fmt: skip
LAUNCHERS = INTERPRETERS | frozenset(
    {"fish", "csh", "tcsh", "lua", "tclsh", "expect", "osascript", "cmd", "deno", "bun", "awk",
     "gawk", "sed", "find", "xargs", "parallel", "env", "exec", "eval", "sudo", "doas", "su",
     "nohup", "timeout", "nice", "ionice", "time", "watch", "setsid", "chroot", "stdbuf", "ssh",
     "docker", "podman", "kubectl", "npx", "bunx", "uvx", "pipx", "make", "mshta", "wscript",
     "cscript", "rundll32", "msiexec", "claude", "codex", "gemini", "openclaw", "aider", "goose",
     "opencode", "cursor-agent"}
)  # fmt: skip
"""Programs that run code or a command given in their arguments (interpreters, wrappers such as
``env``, ``xargs`` or ``sudo``, remote and container runners, coding agents that act on the
prompt they are given): any other program given an argument list runs itself, and what it is
given there is data."""

URL = re.compile(r"(?i)\b(?:https?|wss?|ftp)://([a-z0-9][a-z0-9.-]{0,252})")
_COMMAND_WORDS = re.compile(
    r"(?i)\b(?:curl|wget|bash|sh|powershell|chmod|rm\s+-rf|nc|python3?\s+-c|eval|exec|base64)\b"
)
_CODE_WORDS = re.compile(r"\b(?:import|exec|eval|subprocess|os\.system|socket|urlopen|require)\b")


def is_sensitive_path(text: str) -> bool:
    return SENSITIVE_PATH.search(text) is not None


def host_of(text: str) -> str | None:
    match = URL.search(text)
    return match.group(1).lower() if match else None


_IBAN = re.compile(r"\b([A-Z]{2})\d{2}[A-Z0-9]{11,30}\b")
_IBAN_COUNTRIES = frozenset(
    {
        "AD", "AE", "AL", "AT", "AZ", "BA", "BE", "BG", "BH", "BR", "BY", "CH", "CR", "CY", "CZ",
        "DE", "DK", "DO", "EE", "EG", "ES", "FI", "FO", "FR", "GB", "GE", "GI", "GL", "GR", "GT",
        "HR", "HU", "IE", "IL", "IQ", "IS", "IT", "JO", "KW", "KZ", "LB", "LC", "LI", "LT", "LU",
        "LV", "MC", "MD", "ME", "MK", "MR", "MT", "MU", "NL", "NO", "PK", "PL", "PS", "PT", "QA",
        "RO", "RS", "SA", "SC", "SE", "SI", "SK", "SM", "ST", "SV", "TL", "TN", "TR", "UA", "VA",
        "VG", "XK",
    }
)  # fmt: skip
"""Countries whose banks use IBANs (the two letters an IBAN starts with)."""
_CRYPTO_ADDRESS = re.compile(r"\b(?:0x[0-9a-fA-F]{40}|bc1[02-9ac-hj-np-z]{25,60})\b")
_BASE58_ADDRESS = re.compile(r"\b[13][1-9A-HJ-NP-Za-km-z]{25,34}\b")
_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _base58_checked(address: str) -> bool:
    """A Base58Check string (a Bitcoin address): its last four bytes are the double SHA-256 of
    the rest — what a random token of the same letters almost never is."""
    number = 0
    for char in address:
        number = number * 58 + _BASE58.index(char)
    raw = number.to_bytes(25, "big") if number.bit_length() <= 200 else b""
    digest = hashlib.sha256(hashlib.sha256(raw[:-4]).digest()).digest()
    return len(raw) == 25 and digest[:4] == raw[-4:]


def payment_destination(text: str) -> bool:
    """An IBAN of an IBAN country or a crypto address (Ethereum, Bech32, Base58Check) in
    ``text`` (spaces removed): where money goes."""
    compact = text.replace(" ", "")
    if any(m.group(1) in _IBAN_COUNTRIES for m in _IBAN.finditer(compact)):
        return True
    if _CRYPTO_ADDRESS.search(compact):
        return True
    return any(_base58_checked(m.group()) for m in _BASE58_ADDRESS.finditer(compact))


PAYMENT_DESTINATION = "a payment destination"


def is_command(text: str) -> bool:
    """Whether ``text`` holds the words of a command line or of code (a program would run it)."""
    return _COMMAND_WORDS.search(text) is not None or _CODE_WORDS.search(text) is not None


def meaningful(decoded: str) -> str | None:
    """What a string recovered from a decoder is, when it matters: a sensitive path, a URL, a
    payment destination, a command or code (None for anything else — decoding a data blob is
    ordinary; a hidden account number to pay is not)."""
    if is_sensitive_path(decoded):
        return "a sensitive path"
    if URL.search(decoded):
        return "a URL"
    if payment_destination(decoded):
        return PAYMENT_DESTINATION
    if _CODE_WORDS.search(decoded):
        return "code"
    if _COMMAND_WORDS.search(decoded):
        return "a command"
    return None
