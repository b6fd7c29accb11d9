"""``skillgate`` command line: argument parsing and exit codes only; the work is in
``skillgate_cli.commands``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from skillgate_cli import VERSION
from skillgate_cli.commands import Exit, Failure, Spec, install, verify
from skillgate_cli.registry import DEFAULT_REGISTRY, Registry, RegistryError

REGISTRY_ENV = "SKILLGATE_URL"

EPILOG = """exit codes:
  0  done (install) / verified, unchanged and published (verify)
  1  failed: registry unreachable, not found, checksum mismatch, unsafe archive, folder exists
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
    return root


def _registry_option(command: argparse.ArgumentParser, default_note: str) -> None:
    command.add_argument(
        "--registry", metavar="URL", help=f"registry URL (default: {default_note})"
    )


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    registry_url = arguments.registry or os.environ.get(REGISTRY_ENV) or None
    try:
        if arguments.command == "install":
            return install(
                Spec.parse(arguments.spec),
                arguments.dest,
                arguments.force,
                Registry(registry_url or DEFAULT_REGISTRY),
                sys.stdout,
            )
        return verify(arguments.folder, registry_url, sys.stdout)
    except Failure as failure:
        print(f"skillgate: {failure}", file=sys.stderr)
        return failure.code
    except RegistryError as error:
        print(f"skillgate: {error}", file=sys.stderr)
        return Exit.FAILED
