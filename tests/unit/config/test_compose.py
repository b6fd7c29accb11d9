"""compose.yaml cannot be started here (no Docker engine), so it is checked against the code:
every command names a real entry point, every variable is one the settings read; and it is
safe as shipped: no secret has a value or a default in the file, only the TLS proxy publishes
ports (the broker's management and the database stay on the stack's network), and the web app
trusts the proxy's scheme header because the proxy is the only way in."""

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
APP_SERVICES = ("migrate", "setup-broker", "web", "worker", "rescan-worker", "beat", "flower")
CADDYFILE = ROOT / "deploy" / "caddy" / "Caddyfile"
REQUIRED = re.compile(r"\$\{(?P<name>[A-Z0-9_]+):\?[^}]+\}")
"""``${NAME:?message}``: compose refuses to start when NAME is unset or empty."""
SECRET_NAME = re.compile(r"PASS|SECRET|TOKEN|BASIC_AUTH|_KEY$")
SETTINGS_SOURCE = (ROOT / "config" / "settings.py").read_text()
READ_BY_SETTINGS = set(re.findall(r'env_\w+\(\s*"([A-Z0-9_]+)"', SETTINGS_SOURCE))
READ_BY_LIBRARIES = {"FLOWER_BASIC_AUTH"}


def command(service: str) -> list[str]:
    value = SERVICES[service]["command"]
    return value if isinstance(value, list) else value.split()


def test_it_has_the_production_services_with_health_checks():
    assert set(SERVICES) == {"postgres", "rabbitmq", "proxy", *APP_SERVICES}
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


def test_urls_point_at_the_compose_servers_with_their_passwords():
    environment = SERVICES["web"]["environment"]
    postgres = SERVICES["postgres"]["environment"]
    rabbit = SERVICES["rabbitmq"]["environment"]
    assert environment["DATABASE_URL"] == (
        f"postgres://{postgres['POSTGRES_USER']}:{postgres['POSTGRES_PASSWORD']}@postgres:5432/"
        f"{postgres['POSTGRES_DB']}"
    )
    assert environment["CELERY_BROKER_URL"] == (
        f"amqp://{rabbit['RABBITMQ_DEFAULT_USER']}:{rabbit['RABBITMQ_DEFAULT_PASS']}@rabbitmq:5672/"
        f"{rabbit['RABBITMQ_DEFAULT_VHOST']}"
    )


def test_no_secret_is_written_in_the_file_or_has_a_default():
    """Passwords, keys and tokens come from the environment, and compose refuses to start
    without them (``${NAME:?…}``): a stack started as shipped never runs on a known password."""
    secrets_seen = set()
    for name, service in SERVICES.items():
        for variable, value in (service.get("environment") or {}).items():
            value = str(value)
            if SECRET_NAME.search(variable) and not variable.endswith("_USER"):
                assert REQUIRED.fullmatch(value), f"{name}: {variable} must be ${{…:?…}}"
                secrets_seen.add(variable)
            for url_password in re.findall(r"://[^:/@\s]+:([^@\s]+)@", value):
                assert REQUIRED.fullmatch(url_password), f"{name}: {variable} has a password"
    assert {"POSTGRES_PASSWORD", "RABBITMQ_DEFAULT_PASS", "DJANGO_SECRET_KEY"} <= secrets_seen
    raw = (ROOT / "compose.yaml").read_text()
    assert not re.search(r"\$\{[A-Z0-9_]*(PASS|SECRET|KEY|TOKEN|AUTH)[A-Z0-9_]*:?-", raw), (
        "a secret has a default value"
    )


def test_only_the_tls_proxy_publishes_ports():
    published = {name for name, service in SERVICES.items() if service.get("ports")}
    assert published == {"proxy"}, "the database, the broker (and its management) stay inside"
    assert sorted(SERVICES["proxy"]["ports"]) == ["443:443", "5555:5555", "80:80"]


def test_tls_is_terminated_by_the_proxy_and_django_trusts_only_its_scheme_header():
    proxy = SERVICES["proxy"]
    assert proxy["image"].startswith("caddy:")
    assert "./deploy/caddy/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    sites = caddy_sites(CADDYFILE.read_text())
    web_port = command("web")[command("web").index("--bind") + 1].rsplit(":", 1)[1]
    assert sites == {
        "{$SKILLGATE_DOMAIN}": f"web:{web_port}",
        "{$SKILLGATE_DOMAIN}:5555": "flower:5555",
    }
    assert REQUIRED.fullmatch(proxy["environment"]["SKILLGATE_DOMAIN"])
    web = SERVICES["web"]["environment"]
    assert web["DJANGO_TLS_PROXY_HEADER"] == "true"
    assert str(web.get("DJANGO_HTTPS", "true")).lower() == "true"
    assert web["SKILLGATE_BASE_URL"].startswith("https://")
    assert "${SKILLGATE_DOMAIN:?" in web["DJANGO_ALLOWED_HOSTS"]


def caddy_sites(caddyfile: str) -> dict[str, str]:
    """Each site block's address and the upstream its ``reverse_proxy`` names."""
    sites, current = {}, None
    for line in caddyfile.splitlines():
        line = line.split("#", 1)[0].strip()
        if line.endswith("{") and not line.startswith("reverse_proxy"):
            current = line.removesuffix("{").strip()
        elif line.startswith("reverse_proxy") and current:
            sites[current] = line.split()[1]
        elif line == "}":
            current = None
    return sites


def test_the_image_installs_the_lock_file():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "requirements.lock" in dockerfile
    assert SERVICES["web"]["build"] == "."
