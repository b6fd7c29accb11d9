# Skillgate: `make run` starts the whole system on the embedded default (SQLite + SQLAlchemy
# broker, nothing to install by hand); `make test` installs what it needs and runs every tier.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
export PORT

TEST_DATABASE_URL ?= postgres://skillgate:skillgate@127.0.0.1:5432/skillgate
TEST_BROKER_URL ?= amqp://skillgate:skillgate@127.0.0.1:5672/skillgate-test

TEST_ENV := DATABASE_URL=$(TEST_DATABASE_URL) CELERY_BROKER_URL=$(TEST_BROKER_URL) \
	SKILLGATE_REQUIRE_REAL_SERVICES=1

.PHONY: install run test lint format bench clean

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
	@command -v git >/dev/null || { apt-get update -qq && apt-get install -y -qq git >/dev/null; }
	@touch $@

# A plain-HTTP local run, on a secret key generated once (settings read var/secrets/).
run: export DJANGO_HTTPS ?= false
run: install
	@mkdir -p var/secrets
	@test -s var/secrets/django-secret-key || (umask 077 && $(BIN)/python -c \
		'import secrets; print(secrets.token_urlsafe(50))' > var/secrets/django-secret-key)
	$(BIN)/python manage.py migrate --noinput -v 0
	$(BIN)/python manage.py bootstrap_demo
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/honcho start --procfile Procfile --env var/flower.env --port $(PORT)

test: install
	scripts/services.sh start
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(TEST_ENV) $(BIN)/pytest tests/unit
	$(TEST_ENV) $(BIN)/pytest tests/integration
	$(TEST_ENV) $(BIN)/pytest tests/e2e

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf var/*.sqlite3* var/static
