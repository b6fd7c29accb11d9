"""What a program touches that matters: sensitive paths and names, network tools, decoders.

Shared by the Python, shell and JavaScript analyses so that "a secret source" means the same
thing in every language: credential and key stores, browser profiles, wallets, agent auth files
and session logs, shell history, the environment.
"""

from __future__ import annotations

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
    r")"
)
"""Credential, key, browser, wallet and agent stores (their path or a distinctive part of it)."""

SECRET_NAME = linear.compile(
    r"(?i)(?:token|secret|passw(?:or)?d|passphrase|api[_-]?key|access[_-]?key|private[_-]?key"
    r"|credential|auth|session|cookie|mnemonic|seed)"
)
"""Names of environment variables or fields that hold a secret."""

NETWORK_TOOLS = frozenset(
    {"curl", "wget", "nc", "ncat", "netcat", "socat", "scp", "rsync", "sftp", "ftp", "telnet",
     "ssh", "dig", "nslookup", "host", "invoke-webrequest", "invoke-restmethod", "iwr", "irm"}
)  # fmt: skip
INTERPRETERS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "python", "python3", "python2", "node", "perl", "ruby",
     "php", "pwsh", "powershell", "iex", "invoke-expression", "source", "."}
)  # fmt: skip

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


def meaningful(decoded: str) -> str | None:
    """What a string recovered from a decoder is, when it matters: a sensitive path, a URL, a
    command or code (None for anything else — decoding a data blob is ordinary)."""
    if is_sensitive_path(decoded):
        return "a sensitive path"
    if URL.search(decoded):
        return "a URL"
    if _CODE_WORDS.search(decoded):
        return "code"
    if _COMMAND_WORDS.search(decoded):
        return "a command"
    return None
