"""``manage.py submit PATH_OR_URL [--user NAME] [--wait]``: an operator's tool that submits a
skill folder or a git repository as an existing account, straight into the database of the
server it runs on. Authors use ``skillgate submit`` (over HTTP, with their own token)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from pipeline.explanations import deciding_reasons
from pipeline.models import Submission
from pipeline.services.submissions import SubmissionRequest, create_submission
from pipeline.sources.errors import SourceRejected
from pipeline.sources.folder import files_from_folder
from pipeline.states import REVIEW_STATES, TERMINAL_STATES, State
from registry.services import NameTaken

EXIT_REJECTED = 1
EXIT_IN_REVIEW = 3
EXIT_TIMEOUT = 4


class Command(BaseCommand):
    help = (
        "Operator tool: submit a skill folder or a git URL as an existing account (--user), "
        "from the server's own checkout, and with --wait follow it to its outcome. Authors "
        "submit with `skillgate submit PATH --wait` from their own machine."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("source", help="a skill folder, or an https:// git repository URL")
        parser.add_argument(
            "--user", default="author", help="submit as this account (default: author)"
        )
        parser.add_argument("--path", default="", help="git: the skill's folder in the repo")
        parser.add_argument("--ref", default="", help="git: branch, tag or commit")
        parser.add_argument("--wait", action="store_true", help="follow the submission")
        parser.add_argument("--timeout", type=float, default=120.0, help="seconds to --wait")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise CommandError(f"no user {options['user']!r}: pass --user USERNAME")
        source = str(options["source"])
        try:
            if "://" in source:
                request = SubmissionRequest(
                    repo_url=source, skill_path=str(options["path"]), ref=str(options["ref"])
                )
            else:
                request = SubmissionRequest(files=files_from_folder(Path(source)))
            submission = create_submission(user, request, trigger="cli-submission")
        except (SourceRejected, NameTaken) as exc:
            field = getattr(exc, "field", "")
            raise CommandError(f"rejected: {field + ': ' if field else ''}{exc}") from exc
        what = (
            f"{submission.skill_owner}/{submission.skill_name}"
            if submission.skill_name
            else f"{source} (the worker fetches it and reads its name)"
        )
        self.stdout.write(f"submitted {what} as {submission.pk}")
        if options["wait"]:
            self._follow(submission, float(options["timeout"]))

    def _follow(self, submission: Submission, timeout: float) -> None:
        seen = 0
        deadline = time.monotonic() + timeout
        while True:
            # Read the state before the events: every event up to that state is then printed.
            submission.refresh_from_db()
            for event in submission.events.all()[seen:]:
                seen += 1
                self.stdout.write(
                    f"{event.created_at:%H:%M:%S} {event.from_state or '∅':>15} → "
                    f"{event.to_state:<15} {event.trigger} ({event.actor})"
                )
            if submission.state in TERMINAL_STATES | REVIEW_STATES:
                break
            if time.monotonic() > deadline:
                self.stderr.write(f"still {submission.state} after {timeout:g}s; stopped waiting")
                raise SystemExit(EXIT_TIMEOUT)
            time.sleep(0.3)
        if submission.state in REVIEW_STATES:
            self.stdout.write("waiting for human review (Tier 3)")
        else:
            outcome = submission.outcome
            assert outcome is not None  # every terminal state records its outcome
            self.stdout.write(f"outcome: {outcome.kind} {outcome.code}: {outcome.message}")
        self._explain(submission)
        if submission.state in REVIEW_STATES:
            raise SystemExit(EXIT_IN_REVIEW)
        if submission.state != State.PUBLISHED:
            raise SystemExit(EXIT_REJECTED)

    def _explain(self, submission: Submission) -> None:
        """What decided it, one finding a line with how to fix it, and where to read more."""
        reasons = deciding_reasons(submission)
        if reasons:
            self.stdout.write("what decided it:")
        for reason in reasons:
            where = f" at {reason.location}" if reason.location else ""
            self.stdout.write(f"  - {reason.rule}{where}: {reason.message}")
            if reason.line_text:
                self.stdout.write(f"      {reason.line or '':>4} | {reason.line_text}")
            if reason.remediation:
                self.stdout.write(f"    fix: {reason.remediation}")
        self.stdout.write(
            f"details: {settings.SKILLGATE_BASE_URL}/account/submissions/{submission.pk}/ "
            f"(signed in as {submission.submitter})"
        )
