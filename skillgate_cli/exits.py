"""How a command ends: its exit code, and a failure that carries one with its message."""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    OK = 0
    FAILED = 1  # registry unreachable, not found, refused, checksum mismatch, unsafe archive…
    USAGE = 2
    CHANGED = 3  # verify: files were changed, added or removed locally
    YANKED = 4  # verify: the version was yanked by its owner since
    QUARANTINED = 5  # install refused / verify and list: a version is quarantined
    REJECTED = 6  # submit --wait, status: the submission was rejected
    IN_REVIEW = 7  # submit --wait, status: waiting for a person (human review)
    RUNNING = 8  # submit --wait: still running at --timeout; status: still running
    NOT_SIGNED_IN = 9  # no token, a token the registry refused, or one without the scope


EXIT_CODES = """exit codes:
  0  done: installed, verified unchanged and published, published (submit --wait)
  1  failed: registry unreachable, not found, refused, checksum mismatch, unsafe archive
  2  usage error
  3  verify: files were changed, added or removed locally
  4  verify: the version has been yanked by its owner
  5  quarantined: install refused; verify or list found a quarantined version
  6  submit --wait / status: the submission was rejected
  7  submit --wait / status: waiting for human review
  8  submit --wait: still running at --timeout / status: still running
  9  not logged in, or the token was refused or lacks the scope
"""


class Failure(Exception):
    """Ends the command with ``code`` after printing the message."""

    def __init__(self, message: str, code: Exit = Exit.FAILED) -> None:
        super().__init__(message)
        self.code = code
