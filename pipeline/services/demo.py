"""The demo data ``make run`` loads: an admin, an author with an API token, a few skills."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser, Group
from rest_framework.authtoken.models import Token

from pipeline.models import Submission
from pipeline.services.submissions import SubmissionRequest, create_submission
from pipeline.sources.folder import files_from_folder


@dataclass(frozen=True)
class Account:
    user: AbstractUser
    password: str
    token: str


def ensure_account(
    username: str, password_file: Path, *, superuser: bool = False, groups: tuple[str, ...] = ()
) -> Account:
    """The account, created with a random password kept in ``password_file`` on first use;
    an account in ``groups`` is staff (reviewers work in the admin)."""
    password_file.parent.mkdir(parents=True, exist_ok=True)
    if not password_file.exists():
        password_file.write_text(secrets.token_urlsafe(12))
        password_file.chmod(0o600)
    password = password_file.read_text().strip()
    user_model = get_user_model()
    user = user_model.objects.filter(username=username).first()
    if user is None:
        create = (
            user_model.objects.create_superuser if superuser else user_model.objects.create_user
        )
        user = create(username=username, email=f"{username}@example.com", password=password)
    elif not user.check_password(password):
        user.set_password(password)
        user.save(update_fields=["password"])
    if groups:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
        user.groups.add(*Group.objects.filter(name__in=groups))
    token, _ = Token.objects.get_or_create(user=user)
    return Account(user=user, password=password, token=token.key)


def submit_demo_skills(author: AbstractUser, folder: Path) -> list[Submission]:
    """Submit each skill folder once (skipped when the author already submitted that name)."""
    submitted = []
    for skill_folder in sorted(p for p in folder.iterdir() if p.is_dir()):
        if Submission.objects.filter(submitter=author, skill_name=skill_folder.name).exists():
            continue
        request = SubmissionRequest(files=files_from_folder(skill_folder))
        submitted.append(create_submission(author, request, trigger="demo-submission"))
    return submitted
