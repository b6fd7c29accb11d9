"""``skillgate`` command line: argument parsing and exit codes only; the work is in
``skillgate_cli.commands``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO, cast

from skillgate_cli import VERSION
from skillgate_cli.commands import Exit, Failure, Spec, install, verify
from skillgate_cli.registry import DEFAULT_REGISTRY, Registry, RegistryError
from skillgate_cli.safe_output import SafeStream

REGISTRY_ENV = "SKILLGATE_URL"
TRUST_KEY_ENV = "SKILLGATE_TRUST_KEY"

EPILOG = """exit codes:
  0  done (install) / verified, unchanged and published (verify)
  1  failed: registry unreachable, not found, bad or missing signature, checksum mismatch,
     unsafe archive, folder exists
  2  usage error
  3  verify: files were changed, added or removed locally
  4  verify: the version has been yanked by its owner
  5  the version is quarantined: install refused / verify says remove it
"""


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="skillgate",
        description="Install verified agent skills from a Skillgate registry and check them.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    root.add_argument("--version", action="version", version=f"skillgate {VERSION}")
    commands = root.add_subparsers(dest="command", required=True)

    install_command = commands.add_parser(
        "install",
        help="download, check and unpack a skill into DEST/NAME",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    install_command.add_argument("spec", metavar="OWNER/NAME[@VERSION]")
    install_command.add_argument(
        "--dest", type=Path, default=Path("."), help="folder to install into (default: .)"
    )
    install_command.add_argument(
        "--force", action="store_true", help="replace DEST/NAME if it exists"
    )
    _registry_option(install_command, default_note=f"${REGISTRY_ENV}, else {DEFAULT_REGISTRY}")
    install_command.add_argument(
        "--trust-key",
        metavar="KEYID",
        help=f"the registry's signing key id to pin on first use (default: ${TRUST_KEY_ENV}, "
        "else trust the keys it serves the first time, with a notice)",
    )

    verify_command = commands.add_parser(
        "verify",
        help="check an installed skill against the registry",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verify_command.add_argument("folder", metavar="DIR", type=Path)
    _registry_option(
        verify_command, default_note=f"${REGISTRY_ENV}, else the one it was installed from"
    )
    verify_command.add_argument(
        "--offline",
        action="store_true",
        help="check the recorded signature and the files only, without asking the registry",
    )
    return root


def _registry_option(command: argparse.ArgumentParser, default_note: str) -> None:
    command.add_argument(
        "--registry", metavar="URL", help=f"registry URL (default: {default_note})"
    )


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    registry_url = arguments.registry or os.environ.get(REGISTRY_ENV) or None
    # Every byte printed goes through the escaping streams (TextIO to the commands).
    out, err = cast(TextIO, SafeStream(sys.stdout)), cast(TextIO, SafeStream(sys.stderr))
    try:
        if arguments.command == "install":
            return install(
                Spec.parse(arguments.spec),
                arguments.dest,
                arguments.force,
                Registry(registry_url or DEFAULT_REGISTRY),
                out,
                err,
                arguments.trust_key or os.environ.get(TRUST_KEY_ENV) or None,
            )
        return verify(arguments.folder, registry_url, out, err, offline=arguments.offline)
    except Failure as failure:
        err.write(f"skillgate: {failure}\n")
        return failure.code
    except RegistryError as error:
        err.write(f"skillgate: {error}\n")
        return Exit.FAILED
