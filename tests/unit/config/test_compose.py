"""compose.yaml cannot be started here (no Docker engine), so it is checked against the code:
every command names a real entry point, every variable is one the settings read."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
import yaml
from django.core.management import get_commands

from config.celery import MAINTENANCE_QUEUE, RESCAN_QUEUE, STEP_QUEUES

ROOT = Path(__file__).resolve().parents[3]
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())
SERVICES = COMPOSE["services"]
APP_SERVICES = (
    "migrate", "setup-broker", "signing-key", "web", "worker", "rescan-worker", "beat", "flower",
)  # fmt: skip
SETTINGS_SOURCE = (ROOT / "config" / "settings.py").read_text()
READ_BY_SETTINGS = set(re.findall(r'env_\w+\(\s*"([A-Z0-9_]+)"', SETTINGS_SOURCE))
READ_BY_LIBRARIES = {"FLOWER_BASIC_AUTH"}


def command(service: str) -> list[str]:
    value = SERVICES[service]["command"]
    return value if isinstance(value, list) else value.split()


def test_it_has_the_production_services_with_health_checks():
    assert set(SERVICES) == {"postgres", "rabbitmq", *APP_SERVICES}
    for name in ("postgres", "rabbitmq", "web", "worker", "flower"):
        assert "healthcheck" in SERVICES[name], name
    assert SERVICES["postgres"]["image"].startswith("postgres:15")
    assert "management" in SERVICES["rabbitmq"]["image"]


def test_app_services_wait_for_healthy_servers_and_migrations():
    for name in APP_SERVICES:
        depends = SERVICES[name]["depends_on"]
        assert depends["postgres"]["condition"] == "service_healthy"
        assert depends["rabbitmq"]["condition"] == "service_healthy"
    for name in ("web", "worker", "rescan-worker", "beat"):
        assert SERVICES[name]["depends_on"]["migrate"]["condition"] == (
            "service_completed_successfully"
        )


def test_the_broker_topology_is_declared_before_anything_publishes_or_consumes():
    argv = command("setup-broker")
    assert argv[:2] == ["python", "manage.py"] and argv[2] == "setup_broker"
    assert argv[2] in get_commands()
    for name in ("web", "worker", "rescan-worker", "beat", "flower"):
        assert SERVICES[name]["depends_on"]["setup-broker"]["condition"] == (
            "service_completed_successfully"
        )


def test_rescans_run_at_low_priority_on_their_own_worker():
    assert command("worker")[-2:] == ["-X", RESCAN_QUEUE]
    argv = command("rescan-worker")
    assert argv[:3] == ["nice", "-n", "10"]
    assert argv[3:7] == ["celery", "-A", "config", "worker"]
    assert argv[-2:] == ["-Q", RESCAN_QUEUE]


def test_celery_commands_use_the_real_app():
    for name in ("worker", "beat", "flower"):
        argv = command(name)
        assert argv[:3] == ["celery", "-A", "config"], argv
        assert argv[3] == name
    app = importlib.import_module("config").celery_app
    assert app.main == "config"
    queues = [a for a in command("worker") if a.startswith("submission-") or "," in a]
    assert not queues or set(",".join(queues).split(",")) <= {*STEP_QUEUES, MAINTENANCE_QUEUE}


def test_beat_uses_the_database_scheduler_and_runs_once():
    from django.conf import settings

    assert settings.CELERY_BEAT_SCHEDULER == "django_celery_beat.schedulers:DatabaseScheduler"
    assert SERVICES["beat"].get("deploy", {}).get("replicas", 1) == 1


def test_web_serves_the_real_wsgi_application():
    argv = command("web")
    assert argv[0] == "gunicorn"
    module = importlib.import_module(argv[1])
    assert callable(module.application)


def test_the_signing_key_is_created_once_in_a_volume_that_only_the_web_app_mounts():
    argv = command("signing-key")
    assert argv[:3] == ["python", "manage.py", "rotate_signing_key"] and "--init" in argv
    assert argv[2] in get_commands()
    key_volume = "signing-keys:/app/var/secrets/signing"
    assert SERVICES["signing-key"]["volumes"] == SERVICES["web"]["volumes"] == [key_volume]
    assert SERVICES["web"]["depends_on"]["signing-key"]["condition"] == (
        "service_completed_successfully"
    )
    assert all("volumes" not in SERVICES[name] for name in ("worker", "beat", "flower"))
    assert "signing-keys" in COMPOSE["volumes"]


def test_migrate_runs_a_real_management_command():
    argv = command("migrate")
    assert argv[:2] == ["python", "manage.py"]
    assert argv[2] in get_commands()


@pytest.mark.parametrize("service", APP_SERVICES)
def test_every_environment_variable_is_read_by_the_code(service):
    environment = SERVICES[service]["environment"]
    unknown = (
        set(environment)
        - READ_BY_SETTINGS
        - READ_BY_LIBRARIES
        - {
            "DATABASE_URL",
            "CELERY_BROKER_URL",
        }
    )
    assert not unknown, f"{service} sets variables nothing reads: {unknown}"
    assert "DATABASE_URL" in SETTINGS_SOURCE and "CELERY_BROKER_URL" in SETTINGS_SOURCE


def test_urls_point_at_the_compose_servers():
    environment = SERVICES["web"]["environment"]
    database = environment["DATABASE_URL"]
    broker = environment["CELERY_BROKER_URL"]
    postgres = SERVICES["postgres"]["environment"]
    rabbit = SERVICES["rabbitmq"]["environment"]
    assert database == (
        f"postgres://{postgres['POSTGRES_USER']}:{postgres['POSTGRES_PASSWORD']}@postgres:5432/"
        f"{postgres['POSTGRES_DB']}"
    )
    assert broker == (
        f"amqp://{rabbit['RABBITMQ_DEFAULT_USER']}:{rabbit['RABBITMQ_DEFAULT_PASS']}@rabbitmq:5672/"
        f"{rabbit['RABBITMQ_DEFAULT_VHOST']}"
    )


def test_the_image_installs_the_lock_file():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "requirements.lock" in dockerfile
    assert SERVICES["web"]["build"] == "."
