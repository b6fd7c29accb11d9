# Skillgate: `make run` starts the whole system on PostgreSQL + RabbitMQ (installed and started
# by scripts/services.sh), with Flower; `make run-lite` runs it on the embedded default (SQLite +
# SQLAlchemy broker, no servers, no Flower); `make test` installs what it needs and runs every
# tier on a freshly recreated test database and vhosts.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
export PORT

TEST_DATABASE_URL ?= postgres://skillgate:skillgate@127.0.0.1:5432/skillgate
TEST_BROKER_URL ?= amqp://skillgate:skillgate@127.0.0.1:5672/skillgate-test

RUN_DATABASE_URL ?= postgres://skillgate:skillgate@127.0.0.1:5432/skillgate
RUN_BROKER_URL ?= amqp://skillgate:skillgate@127.0.0.1:5672/skillgate
RUN_STARTED := $(shell date +%s)

TEST_ENV := DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) \
	SKILLGATE_REQUIRE_REAL_SERVICES=1 SKILLGATE_ENV_FILE=

# var/local.env records what `make run` / `make run-lite` started, so `manage.py` commands
# typed in another terminal talk to the same system (the environment still wins).
START_PROCESSES = $(BIN)/python manage.py migrate --noinput -v 0 && \
	$(BIN)/python manage.py setup_broker -v 0 && \
	$(BIN)/python manage.py bootstrap_demo && \
	SKILLGATE_RUN_STARTED=$(RUN_STARTED) SKILLGATE_WEB_PORT=$(PORT) PYTHONUNBUFFERED=1 PATH="$(CURDIR)/$(BIN):$$PATH" \
	$(BIN)/honcho start --procfile Procfile --env var/flower.env --port $(PORT)

.PHONY: install run run-lite secret-key test lint typecheck format bench clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11 or newer is needed (found $$($(PYTHON) --version))"; exit 1; }
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { \
		echo "python3-venv is missing: installing it from Debian"; \
		apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null && \
		rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); }
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps --editable .  # the project itself: .venv/bin/skillgate
	@command -v git >/dev/null || { apt-get update -qq && apt-get install -y -qq git >/dev/null; }
	@touch $@

run: install secret-key
	scripts/services.sh start
	@printf '%s\n' '# written by `make run`: PostgreSQL + RabbitMQ, task events on for Flower' \
		'DATABASE_URL=$(RUN_DATABASE_URL)' 'CELERY_BROKER_URL=$(RUN_BROKER_URL)' \
		'SKILLGATE_TASK_EVENTS=true' $(LOCAL_RUN_SETTINGS) > var/local.env
	@$(START_PROCESSES)

run-lite: install secret-key
	@printf '%s\n' '# written by `make run-lite`: the embedded default (SQLite + SQLAlchemy broker)' \
		$(LOCAL_RUN_SETTINGS) > var/local.env
	@$(START_PROCESSES) web worker rescan beat demo

# A local run serves plain HTTP on a secret key generated once (settings read var/secrets/),
# and Prometheus scrapes /metrics with the bearer token in var/secrets/metrics-token.
LOCAL_RUN_SETTINGS = 'DJANGO_HTTPS=false' 'SKILLGATE_BASE_URL=http://127.0.0.1:$(PORT)'

secret-key:
	@mkdir -p var/secrets
	@test -s var/secrets/django-secret-key || (umask 077 && $(BIN)/python -c \
		'import secrets; print(secrets.token_urlsafe(50))' > var/secrets/django-secret-key)
	@test -s var/secrets/metrics-token || (umask 077 && $(BIN)/python -c \
		'import secrets; print(secrets.token_urlsafe(32))' > var/secrets/metrics-token)

test: install
	scripts/services.sh test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(TYPECHECK)
	$(TEST_ENV) $(BIN)/pytest tests/unit
	$(TEST_ENV) $(BIN)/pytest tests/integration
	$(TEST_ENV) $(BIN)/pytest tests/e2e

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(TYPECHECK)

# mypy (with django-stubs, which imports the settings) in the explicit test mode, ignoring
# var/local.env; configured in pyproject.toml [tool.mypy].
TYPECHECK = SKILLGATE_DEV_MODE=1 SKILLGATE_ENV_FILE= $(BIN)/mypy .

typecheck: install
	$(TYPECHECK)

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf var/*.sqlite3* var/static
