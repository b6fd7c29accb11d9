"""Issue 9 item 12: nothing runs on the public development key outside the explicit test mode,
and the production settings pass ``manage.py check --deploy`` without a warning."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import DEVELOPMENT_SECRET_KEY, secret_key

ROOT = Path(__file__).resolve().parents[3]


def manage(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``manage.py`` in a fresh process, outside the test mode, with its own var/ folder."""
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SKILLGATE_DEV_MODE", "DJANGO_SECRET_KEY", "DJANGO_HTTPS"}
    }
    base |= {"SKILLGATE_VAR_DIR": str(tmp_path), "DATABASE_URL": f"sqlite:///{tmp_path}/db"}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=base | env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_a_key_nothing_starts(tmp_path):
    done = manage(tmp_path, "check")
    assert done.returncode != 0
    assert "No secret key: set DJANGO_SECRET_KEY" in done.stderr


def test_the_built_in_development_key_is_refused_outside_the_test_mode(tmp_path):
    done = manage(tmp_path, "check", DJANGO_SECRET_KEY=DEVELOPMENT_SECRET_KEY)
    assert done.returncode != 0
    assert "built-in development key" in done.stderr


def test_production_settings_pass_the_deploy_checks_without_a_warning(tmp_path):
    done = manage(
        tmp_path,
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="skills.example.org",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_a_plain_http_local_run_switches_https_off(tmp_path):
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "django-secret-key").write_text(secrets.token_urlsafe(50))
    done = manage(
        tmp_path,
        "shell",
        "-c",
        "from django.conf import settings as s; "
        "print(s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, s.SECURE_HSTS_SECONDS)",
        DJANGO_HTTPS="false",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False False 0"


def test_the_key_comes_from_the_environment_then_the_file_then_the_test_mode(tmp_path):
    key_file = tmp_path / "key"
    assert secret_key("", key_file, dev_mode=True) == DEVELOPMENT_SECRET_KEY
    with pytest.raises(ImproperlyConfigured):
        secret_key("", key_file, dev_mode=False)
    key_file.write_text("from-the-file\n")
    assert secret_key("", key_file, dev_mode=False) == "from-the-file"
    assert secret_key("from-the-environment", key_file, dev_mode=False) == "from-the-environment"
