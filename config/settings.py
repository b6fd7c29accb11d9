"""Skillgate settings: every value comes from the environment, with a safe default.

With no environment at all the system runs on the *embedded default*: a SQLite database and
kombu's SQLAlchemy transport on a SQLite file as the broker, both under ``var/``. Production
selects PostgreSQL and RabbitMQ with ``DATABASE_URL`` and ``CELERY_BROKER_URL``.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url

from config.env import (
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_str,
    load_env_file,
    secret_key,
)

BASE_DIR = Path(__file__).resolve().parent.parent
# What `make run` / `make run-lite` started (database, broker…); the environment wins, and an
# empty SKILLGATE_ENV_FILE (as `make test` sets) reads nothing.
load_env_file(Path(env_str("SKILLGATE_ENV_FILE", str(BASE_DIR / "var" / "local.env"))))
VAR_DIR = Path(env_str("SKILLGATE_VAR_DIR", str(BASE_DIR / "var")))

# --- Django core -------------------------------------------------------------------------
# Explicit development/test mode (the test suite sets it): the built-in secret key is allowed
# and HTTPS is off by default. Nothing else may run on the built-in key.
DEV_MODE = env_bool("SKILLGATE_DEV_MODE", False)
# DJANGO_SECRET_KEY, else the file DJANGO_SECRET_KEY_FILE (``make run`` generates
# var/secrets/django-secret-key), else — in dev mode only — the built-in development key.
SECRET_KEY = secret_key(
    env_str("DJANGO_SECRET_KEY", ""),
    Path(env_str("DJANGO_SECRET_KEY_FILE", str(VAR_DIR / "secrets" / "django-secret-key"))),
    dev_mode=DEV_MODE,
)
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

# HTTPS is on unless turned off for a plain-HTTP local run (``make run`` does,
# DJANGO_HTTPS=false): redirect to https, secure cookies, HSTS. Behind a TLS-terminating proxy
# set DJANGO_TLS_PROXY_HEADER=true so the forwarded scheme is trusted. Health probes and
# Prometheus scrapes inside the network stay on plain HTTP.
HTTPS = env_bool("DJANGO_HTTPS", not DEV_MODE)
SECURE_SSL_REDIRECT = HTTPS
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 365 * 24 * 3600) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", True)
if env_bool("DJANGO_TLS_PROXY_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

INSTALLED_APPS = [
    "config.admin_site.SkillgateAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "accounts",
    "authors",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "axes",
    "pipeline",
    "registry",
    "grading",
    "reviews",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.api_errors.DatabaseUnavailableMiddleware",
    # Last, as django-axes requires: turns a locked-out login into its lockout response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "config" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

# --- Database: SQLite file by default, PostgreSQL via DATABASE_URL ----------------------
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'skillgate.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend, its health check asking the socket before the server (no round trip
    # per request or task while the server has said nothing): config/postgresql/base.py.
    DATABASES["default"]["ENGINE"] = "config.postgresql"
    # Server-side binding, and a statement a connection has run this many times is prepared,
    # so PostgreSQL stops parsing and planning the pipeline's few statements again and again
    # (Django's default, None, never prepares). 0 never prepares: needed behind a pooler in
    # transaction mode that cannot keep prepared statements (PgBouncer before 1.21).
    #
    # After five runs of a prepared statement PostgreSQL may switch to a generic plan, one that
    # ignores the parameters' values. For the workers' fixed statements that is the saving; for
    # the web app's operator lists it can be a trap: a search pattern or a rare filter value is
    # a parameter, and the generic plan walks a million rows (a search went from 16 ms to
    # 1.1 s). So the web app (config/wsgi.py) plans every run for its values, "auto" elsewhere.
    DATABASES["default"]["OPTIONS"] = {
        "server_side_binding": True,
        "prepare_threshold": env_int("DATABASE_PREPARE_THRESHOLD", 5) or None,
        "options": "-c plan_cache_mode="
        + env_choice(
            "DATABASE_PLAN_CACHE_MODE",
            "auto",
            ("auto", "force_custom_plan", "force_generic_plan"),
        ),
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Web, worker and beat share the file: WAL lets readers run beside the one writer, and
    # IMMEDIATE transactions queue writers on the busy timeout instead of failing to upgrade.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }

AUTHENTICATION_BACKENDS = [
    # First: refuses logins of a locked-out account or address before checking the password.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Password guessing on the admin login: after this many failures an account, and separately an
# address, is locked out for the cool-off; operators see and clear lockouts in the admin.
AXES_FAILURE_LIMIT = env_int("SKILLGATE_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("SKILLGATE_LOGIN_LOCKOUT_MINUTES", 30))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True

# Shared by every process without a new server: the API throttle counts here (a per-process
# cache let each gunicorn worker grant the full rate). The table is created by a migration.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "skillgate_cache",
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
FORMAT_MODULE_PATH = "config.formats"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Served by WhiteNoise straight from the apps; set DJANGO_STATIC_ROOT to collect them (images).
STATIC_ROOT = env_str("DJANGO_STATIC_ROOT", "") or None
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# The author pages' sign-in (Django's auth views); the admin keeps its own login page.
LOGIN_URL = "authors:login"
LOGIN_REDIRECT_URL = "authors:home"
LOGOUT_REDIRECT_URL = "authors:login"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "filters": {"client_errors": {"()": "config.logging.ClientErrorsWithoutTracebacks"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["client_errors"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("SKILLGATE_LOG_LEVEL", "INFO")},
    # django-axes announces itself at every start of every process: keep its warnings only.
    "loggers": {"axes": {"level": "WARNING"}},
}

# --- REST API ----------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # JSON in, always (nesting bounded before parsing): a form-encoded body is answered "send
    # JSON", not misread field by field.
    "DEFAULT_PARSER_CLASSES": ["config.parsers.BoundedJSONParser"],
    "DEFAULT_PAGINATION_CLASS": "config.pagination.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "config.api_errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.ScopedRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "submissions": env_str("SKILLGATE_SUBMISSION_RATE", "120/hour"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Skillgate API",
    "DESCRIPTION": (
        "Submit agent skills for verification, follow them through the scan → judge → "
        "review → publish pipeline, and read the registry of published skills."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "ENUM_NAME_OVERRIDES": {
        "SubmissionStateEnum": "pipeline.states.State",
        "VersionStatusEnum": "registry.models.VersionStatus",
        "RescanCampaignStatusEnum": "registry.models.RescanCampaign.Status",
        "AppealStatusEnum": "reviews.models.Appeal.Status",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.openapi.add_error_responses",
        "config.openapi.tag_by_path",
    ],
    # Served from this server: the docs work without reaching a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# --- Celery (topology lives in config/celery.py) ----------------------------------------
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", f"sqla+sqlite:///{VAR_DIR / 'broker.sqlite3'}")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ALWAYS_EAGER = False
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Task events cost a message each: off unless Flower watches the fleet (`make run` turns them
# on so Flower sees every task from the first one).
CELERY_WORKER_SEND_TASK_EVENTS = env_bool("SKILLGATE_TASK_EVENTS", False)
CELERY_TASK_SEND_SENT_EVENT = CELERY_WORKER_SEND_TASK_EVENTS
# Retries of failures about the submission (git host, judge, a step's time limit): this many,
# backoff factor × 2^(failures − 1) seconds, jittered between half and all of it, capped at 5
# minutes. Failures of our own database or broker never count (pipeline.services.retries): the
# step waits for them, from INFRA_RETRY_FLOOR_S up to INFRA_RETRY_MAX_S between tries, for at
# most INFRA_WAIT_S (the pipeline's deadline: longer than any restart or failover).
SKILLGATE_RETRY_BACKOFF_S = env_int("SKILLGATE_RETRY_BACKOFF_S", 2)
SKILLGATE_STEP_MAX_RETRIES = env_int("SKILLGATE_STEP_MAX_RETRIES", 3)
SKILLGATE_INFRA_RETRY_FLOOR_S = env_float("SKILLGATE_INFRA_RETRY_FLOOR_S", 5.0)
SKILLGATE_INFRA_RETRY_MAX_S = env_float("SKILLGATE_INFRA_RETRY_MAX_S", 30.0)
SKILLGATE_INFRA_WAIT_S = env_int("SKILLGATE_INFRA_WAIT_S", 30 * 60)
# The Tier 1 step's soft time limit (the hard one is 30 s later). Tier 1 is deterministic: a
# bundle that hits it would hit it every time, so it is refused, not retried.
SKILLGATE_SCAN_TIME_LIMIT_S = env_float("SKILLGATE_SCAN_TIME_LIMIT_S", 60.0)

# --- Submissions and bundles ----------------------------------------------------------
# Seed 003: 50 KB of skill content per submission.
SKILLGATE_MAX_CONTENT_BYTES = env_int("SKILLGATE_MAX_CONTENT_BYTES", 50 * 1024)
# JSON escaping can multiply text several times; anything larger is refused with 413 unread.
DATA_UPLOAD_MAX_MEMORY_SIZE = SKILLGATE_MAX_CONTENT_BYTES * 8 + 64 * 1024
SKILLGATE_MAX_FILES = env_int("SKILLGATE_MAX_FILES", 200)
SKILLGATE_MAX_PATH_LENGTH = env_int("SKILLGATE_MAX_PATH_LENGTH", 255)
# The most rows one page of any list may hold, whatever ``?limit=`` asks for.
SKILLGATE_MAX_PAGE_SIZE = env_int("SKILLGATE_MAX_PAGE_SIZE", 200)
# Request bodies nested deeper than this are a 400 before they are parsed (no RecursionError).
SKILLGATE_MAX_JSON_DEPTH = env_int("SKILLGATE_MAX_JSON_DEPTH", 32)
# Seed 002 §4.4: the automated phase must end before this deadline.
SKILLGATE_PIPELINE_DEADLINE_S = env_int("SKILLGATE_PIPELINE_DEADLINE_S", 30 * 60)

SKILLGATE_GIT_ALLOWED_HOSTS = env_list(
    "SKILLGATE_GIT_ALLOWED_HOSTS", ["github.com", "gitlab.com", "codeberg.org", "bitbucket.org"]
)
SKILLGATE_GIT_ALLOW_FILE_URLS = env_bool("SKILLGATE_GIT_ALLOW_FILE_URLS", False)
SKILLGATE_GIT_TIMEOUT_S = env_float("SKILLGATE_GIT_TIMEOUT_S", 30.0)
SKILLGATE_GIT_MAX_REPO_BYTES = env_int("SKILLGATE_GIT_MAX_REPO_BYTES", 50 * 1024 * 1024)
# Vendor skills with their scripts and references are often larger than the inline limit.
SKILLGATE_GIT_MAX_BUNDLE_BYTES = env_int("SKILLGATE_GIT_MAX_BUNDLE_BYTES", 2 * 1024 * 1024)

# --- Sweeps (seed 001 stuck recovery, seed 002 deadlines) -----------------------------
SKILLGATE_STUCK_AFTER_S = env_int("SKILLGATE_STUCK_AFTER_S", 5 * 60)
SKILLGATE_RECOVERY_MAX_TRIES = env_int("SKILLGATE_RECOVERY_MAX_TRIES", 3)
# Between recovery tries: base × 2^(try − 1), so 1, 2, 4 minutes by default.
SKILLGATE_RECOVERY_BACKOFF_S = env_int("SKILLGATE_RECOVERY_BACKOFF_S", 60)
# A submission the broker never confirmed is re-sent after this grace period.
SKILLGATE_UNDELIVERED_AFTER_S = env_int("SKILLGATE_UNDELIVERED_AFTER_S", 10)
SKILLGATE_SWEEP_BATCH = env_int("SKILLGATE_SWEEP_BATCH", 500)
# How often the dead-letter queue is reconciled with the dead-letter records.
SKILLGATE_DLQ_RECONCILE_EVERY_S = env_int("SKILLGATE_DLQ_RECONCILE_EVERY_S", 30)

# --- Re-scan campaigns: lanes of messages per campaign, each re-scanning for a slice of time on
# the low-priority queue (its own worker in `make run` and compose) before handing over.
SKILLGATE_RESCAN_LANES = env_int("SKILLGATE_RESCAN_LANES", 2)
SKILLGATE_RESCAN_SLICE_S = env_float("SKILLGATE_RESCAN_SLICE_S", 2.0)

# --- Grading and the decision policy --------------------------------------------------
SKILLGATE_AUTO_APPROVE_MIN_SCORE = env_int("SKILLGATE_AUTO_APPROVE_MIN_SCORE", 80)
SKILLGATE_REVIEW_MIN_SCORE = env_int("SKILLGATE_REVIEW_MIN_SCORE", 60)
SKILLGATE_JUDGE = env_str("SKILLGATE_JUDGE", "heuristic")
SKILLGATE_LLM_BASE_URL = env_str("SKILLGATE_LLM_BASE_URL", "http://127.0.0.1:11434/v1")
SKILLGATE_LLM_MODEL = env_str("SKILLGATE_LLM_MODEL", "llama3.1")
SKILLGATE_LLM_API_KEY = env_str("SKILLGATE_LLM_API_KEY", "not-needed")
SKILLGATE_LLM_TIMEOUT_S = env_float("SKILLGATE_LLM_TIMEOUT_S", 60.0)

# --- Operators ----------------------------------------------------------------------------
# Where this registry's web server answers, for links printed by commands (`make run` sets it).
SKILLGATE_BASE_URL = env_str("SKILLGATE_BASE_URL", "http://127.0.0.1:8000").rstrip("/")
# Where operators find Flower (linked from the landing page).
SKILLGATE_FLOWER_URL = env_str(
    "SKILLGATE_FLOWER_URL", f"http://127.0.0.1:{env_str('FLOWER_PORT', '5555')}/"
)
# Authors see "a reviewer" where a reviewer acted on their submission, unless this is set.
SKILLGATE_SHOW_REVIEWER_NAMES = env_bool("SKILLGATE_SHOW_REVIEWER_NAMES", False)
# A submission's event stream (GET /api/v1/submissions/{id}/stream) ends after this long, well
# inside gunicorn's 30 s worker timeout; the client reconnects with Last-Event-ID.
SKILLGATE_STREAM_MAX_S = env_float("SKILLGATE_STREAM_MAX_S", 15.0)
SKILLGATE_STREAM_POLL_S = env_float("SKILLGATE_STREAM_POLL_S", 0.25)
# Which workers are alive is asked of the workers themselves (Celery's inspection, a broadcast
# that waits this long for answers), and the answer is kept this long per process, so /metrics,
# /readyz and the admin home do not each wait for it.
SKILLGATE_WORKER_PING_TIMEOUT_S = env_float("SKILLGATE_WORKER_PING_TIMEOUT_S", 1.0)
SKILLGATE_WORKER_STATUS_TTL_S = env_float("SKILLGATE_WORKER_STATUS_TTL_S", 10.0)
# When set, /metrics requires "Authorization: Bearer <token>" (Prometheus bearer_token).
SKILLGATE_METRICS_TOKEN = env_str("SKILLGATE_METRICS_TOKEN", "")
