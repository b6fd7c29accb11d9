"""``skillgate`` command line: argument parsing, where the registry and the token come from,
and exit codes; the work is in the command modules. An expected failure prints one message
(what went wrong and what to do) and exits with its code, never a traceback."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from skillgate_cli import VERSION, account, authoring, catalogue, credentials, installing
from skillgate_cli.exits import EXIT_CODES, Exit, Failure
from skillgate_cli.output import Printer, shown
from skillgate_cli.registry import DEFAULT_REGISTRY, Forbidden, NotSignedIn, Registry, RegistryError
from skillgate_cli.specs import USAGE, Spec

REGISTRY_ENV = "SKILLGATE_URL"
DEST_ENV = "SKILLGATE_DEST"
TRUST_KEY_ENV = "SKILLGATE_TRUST_KEY"
SCOPES = ("read", "submit", "yank", "review", "operate")


def parser() -> argparse.ArgumentParser:
    formatter = argparse.RawDescriptionHelpFormatter
    root = argparse.ArgumentParser(
        prog="skillgate",
        description="Submit agent skills to a Skillgate registry, and install verified ones.",
        epilog=EXIT_CODES
        + f"\nthe registry: --registry, else ${REGISTRY_ENV}, else the one you logged in to, "
        f"else {DEFAULT_REGISTRY}\n",
        formatter_class=formatter,
    )
    root.add_argument("--version", action="version", version=f"skillgate {VERSION}")
    root.add_argument("--registry", metavar="URL", help="the registry to talk to")
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(
            name, help=summary, description=summary, epilog=EXIT_CODES, formatter_class=formatter
        )
        sub.add_argument(
            "--registry", metavar="URL", default=argparse.SUPPRESS, help="the registry to talk to"
        )
        return sub

    login = command(
        "login", "check a token made on your account page and keep it for this registry"
    )
    login.add_argument("--token-stdin", action="store_true", help="read the token from stdin")
    command("logout", "forget this registry's token on this machine (it is not revoked)")

    token = command("token", "list, make or revoke your API tokens")
    token_commands = token.add_subparsers(dest="token_command", required=True, metavar="ACTION")
    token_commands.add_parser("list", help="your tokens (never their keys)")
    create = token_commands.add_parser("create", help="make a token; its key is shown once")
    create.add_argument("name")
    create.add_argument(
        "--scope",
        action="append",
        choices=SCOPES,
        default=[],
        help="repeatable; default: read, submit, yank",
    )
    create.add_argument("--days", type=int, default=90, help="how long it lasts (1-366)")
    revoke = token_commands.add_parser("revoke", help="stop a token working: its id, or 'legacy'")
    revoke.add_argument("token_id", metavar="ID")

    submit = command("submit", "submit a skill folder, or a git repository, for verification")
    submit.add_argument(
        "source", metavar="PATH|URL", help="a skill folder, or https://HOST/OWNER/REPO"
    )
    submit.add_argument("--path", default="", help="git: the skill's folder in the repository")
    submit.add_argument("--ref", default="", help="git: branch, tag or commit")
    submit.add_argument("--wait", action="store_true", help="follow it to its outcome")
    submit.add_argument("--timeout", type=float, default=300.0, help="seconds to --wait (300)")

    status = command("status", "a submission's state, outcome and what decided it")
    status.add_argument("submission_id", metavar="ID")
    status.add_argument("--wait", action="store_true", help="follow it to its outcome")
    status.add_argument("--timeout", type=float, default=300.0, help="seconds to --wait (300)")

    appeal = command("appeal", "appeal a reviewer's rejection of your submission (once)")
    appeal.add_argument("submission_id", metavar="ID")
    appeal.add_argument("--reason", required=True, help="why the rejection is wrong")

    for action in ("yank", "unyank"):
        change = command(action, f"{action} a version of your skill")
        change.add_argument("spec", metavar="OWNER/NAME@VERSION")
        change.add_argument("--reason", default="", help="why (shown to installers)")

    search = command("search", "find published skills by name, owner or description")
    search.add_argument("words", nargs="+", metavar="WORD")
    search.add_argument("--limit", type=int, default=20, help="how many to show (20)")

    info = command("info", "a skill and its versions with their status")
    info.add_argument("spec", metavar="[OWNER/]NAME")

    install = command("install", "download, check and unpack a skill into DEST/NAME")
    install.add_argument("spec", metavar=USAGE)
    _dest(install, default_here=True)
    install.add_argument("--force", action="store_true", help="replace DEST/NAME whatever it holds")
    _trust_key(install)

    upgrade = command("upgrade", "install the latest version of installed skills")
    upgrade.add_argument("names", nargs="*", metavar="NAME", help="default: every installed skill")
    _dest(upgrade)
    upgrade.add_argument("--force", action="store_true", help="replace local changes too")
    _trust_key(upgrade)

    uninstall = command("uninstall", "remove installed skills")
    uninstall.add_argument("names", nargs="+", metavar="NAME")
    _dest(uninstall)
    uninstall.add_argument("--force", action="store_true", help="remove local changes too")

    listing = command("list", "what is installed where, and whether an advisory now covers it")
    _dest(listing)

    verify = command("verify", "check an installed skill against the registry")
    verify.add_argument("folder", metavar="DIR", type=Path)
    verify.add_argument(
        "--offline",
        action="store_true",
        help="check the recorded signature and the files only, without asking the registry",
    )
    return root


def _trust_key(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--trust-key",
        metavar="KEYID",
        help=f"the registry's signing key id to pin if none is pinned yet (default: "
        f"${TRUST_KEY_ENV}, else trust the keys it serves the first time, with a notice)",
    )


def _dest(command: argparse.ArgumentParser, default_here: bool = False) -> None:
    default = (
        f"${DEST_ENV}, else the current folder"
        if default_here
        else "the folders skills were installed into"
    )
    command.add_argument("--dest", type=Path, help=f"the skills folder (default: {default})")


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    printer = Printer()
    try:
        return int(run(arguments, printer))
    except Failure as failure:
        printer.note(f"skillgate: {failure}")
        return int(failure.code)
    except NotSignedIn as refused:
        printer.note(f"skillgate: {shown(refused)}")
        return int(Exit.NOT_SIGNED_IN)
    except Forbidden as refused:
        printer.note(f"skillgate: {shown(refused)}")
        return int(Exit.NOT_SIGNED_IN if refused.code == "token_scope" else Exit.FAILED)
    except (RegistryError, credentials.ConfigError) as error:
        printer.note(f"skillgate: {shown(error)}")
        return int(Exit.FAILED)
    except KeyboardInterrupt:
        printer.note("skillgate: interrupted")
        return 130


def run(arguments: argparse.Namespace, printer: Printer) -> Exit:
    command = arguments.command
    if command == "verify":
        return installing.verify(
            arguments.folder,
            getattr(arguments, "registry", None) or os.environ.get(REGISTRY_ENV),
            printer,
            offline=arguments.offline,
        )
    if command in {"list", "upgrade", "uninstall"}:
        dest = arguments.dest
        if command == "list":
            return installing.list_installed(dest, printer)
        if command == "upgrade":
            return installing.upgrade(
                arguments.names, dest, arguments.force, printer, _trusted_key_id(arguments)
            )
        return installing.uninstall(arguments.names, dest, arguments.force, printer)
    url = (
        getattr(arguments, "registry", None)
        or os.environ.get(REGISTRY_ENV)
        or credentials.default_registry()
        or DEFAULT_REGISTRY
    )
    public = command in {"install", "search", "info"}
    token = None if public else credentials.token_for(Registry(url).url)[0]
    registry = Registry(url, token)
    if command == "login":
        return account.login(registry, arguments.token_stdin, printer)
    if command == "logout":
        return account.logout(registry, printer)
    if command == "token":
        if arguments.token_command == "list":
            return account.list_tokens(registry, printer)
        if arguments.token_command == "create":
            scopes = arguments.scope or ["read", "submit", "yank"]
            return account.create_token(arguments.name, scopes, arguments.days, registry, printer)
        return account.revoke_token(arguments.token_id, registry, printer)
    if command == "submit":
        return authoring.submit(
            arguments.source,
            arguments.path,
            arguments.ref,
            arguments.wait,
            arguments.timeout,
            registry,
            printer,
        )
    if command == "status":
        return authoring.status(
            arguments.submission_id, arguments.wait, arguments.timeout, registry, printer
        )
    if command == "appeal":
        return authoring.appeal(arguments.submission_id, arguments.reason, registry, printer)
    if command in {"yank", "unyank"}:
        return authoring.change_status(arguments.spec, command, arguments.reason, registry, printer)
    if command == "search":
        return catalogue.search(arguments.words, arguments.limit, registry, printer)
    if command == "info":
        return catalogue.info(arguments.spec, registry, printer)
    dest = arguments.dest or Path(os.environ.get(DEST_ENV) or ".")
    return installing.install(
        Spec.parse(arguments.spec),
        dest,
        arguments.force,
        registry,
        printer,
        trust_key=_trusted_key_id(arguments),
    )


def _trusted_key_id(arguments: argparse.Namespace) -> str | None:
    return arguments.trust_key or os.environ.get(TRUST_KEY_ENV) or None
