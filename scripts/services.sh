#!/usr/bin/env bash
# Installs (Debian packages) and starts the real PostgreSQL and RabbitMQ that `make run` and the
# test tiers use, with the database role, databases and broker vhosts they need.
#
#   scripts/services.sh start   idempotent: keeps the data of `make run` (database and vhost
#                               "skillgate")
#   scripts/services.sh test    start, then DROP and recreate every test and benchmark database
#                               and vhost, so each `make test` runs as on a machine that never
#                               ran it (a test that leans on leftovers fails here too)
#   scripts/services.sh stop
set -euo pipefail

PG_USER="${SKILLGATE_PG_USER:-skillgate}"
PG_PASSWORD="${SKILLGATE_PG_PASSWORD:-skillgate}"
PG_DB="${SKILLGATE_PG_DB:-skillgate}"
PG_TEST_DBS="${SKILLGATE_PG_TEST_DBS:-test_skillgate skillgate_bench test_skillgate_bench}"
MQ_USER="${SKILLGATE_MQ_USER:-skillgate}"
MQ_PASSWORD="${SKILLGATE_MQ_PASSWORD:-skillgate}"
MQ_VHOST="${SKILLGATE_MQ_VHOST:-skillgate}"
MQ_TEST_VHOSTS="${SKILLGATE_MQ_TEST_VHOSTS:-skillgate-test skillgate-bench}"

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

as_postgres() {
  as_root su postgres -c "$1"
}

install_packages() {
  local missing=()
  command -v pg_ctlcluster >/dev/null 2>&1 || missing+=(postgresql)
  command -v rabbitmqctl >/dev/null 2>&1 || missing+=(rabbitmq-server)
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v git >/dev/null 2>&1 || missing+=(git)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "services: installing ${missing[*]} from Debian"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  # promtool checks the shipped alert rules and dashboard queries (deploy/); the server it
  # comes with is not used (no recommended exporters either).
  if ! command -v promtool >/dev/null 2>&1; then
    echo "services: installing prometheus (for promtool) from Debian"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      prometheus >/dev/null
  fi
}

start_postgres() {
  as_root service postgresql start >/dev/null
  for _ in $(seq 1 60); do
    as_postgres "pg_isready -q" && break
    sleep 1
  done
  as_postgres "psql -qtAc \"SELECT 1 FROM pg_roles WHERE rolname='${PG_USER}'\"" | grep -q 1 \
    || as_postgres "psql -qc \"CREATE ROLE ${PG_USER} LOGIN CREATEDB PASSWORD '${PG_PASSWORD}'\""
  ensure_database "${PG_DB}"
  echo "services: PostgreSQL ready (postgres://${PG_USER}:***@127.0.0.1:5432/${PG_DB})"
}

ensure_database() {
  as_postgres "psql -qtAc \"SELECT 1 FROM pg_database WHERE datname='$1'\"" | grep -q 1 \
    || as_postgres "createdb -O ${PG_USER} $1"
}

start_rabbitmq() {
  as_root service rabbitmq-server start >/dev/null || true
  for _ in $(seq 1 90); do
    as_root rabbitmqctl -q await_startup >/dev/null 2>&1 && break
    sleep 1
  done
  as_root rabbitmqctl -q await_startup
  # The management API: operators' dashboard, and the tests make throw-away vhosts with it.
  as_root rabbitmq-plugins -q enable rabbitmq_management >/dev/null
  as_root rabbitmqctl -q list_users | grep -q "^${MQ_USER}\b" \
    || as_root rabbitmqctl -q add_user "${MQ_USER}" "${MQ_PASSWORD}"
  as_root rabbitmqctl -q set_user_tags "${MQ_USER}" administrator
  ensure_vhost "${MQ_VHOST}"
  for _ in $(seq 1 60); do
    curl -fsS -o /dev/null -u "${MQ_USER}:${MQ_PASSWORD}" http://127.0.0.1:15672/api/overview \
      && break
    sleep 1
  done
  echo "services: RabbitMQ ready (amqp://${MQ_USER}:***@127.0.0.1:5672/${MQ_VHOST})"
}

ensure_vhost() {
  as_root rabbitmqctl -q list_vhosts | grep -qx "$1" || as_root rabbitmqctl -q add_vhost "$1"
  as_root rabbitmqctl -q set_permissions -p "$1" "${MQ_USER}" ".*" ".*" ".*"
}

recreate_test_state() {
  for db in ${PG_TEST_DBS}; do
    as_postgres "psql -qc 'DROP DATABASE IF EXISTS \"${db}\" WITH (FORCE)'"
  done
  for vhost in ${MQ_TEST_VHOSTS}; do
    as_root rabbitmqctl -q list_vhosts | grep -qx "${vhost}" \
      && as_root rabbitmqctl -q delete_vhost "${vhost}"
    ensure_vhost "${vhost}"
  done
  echo "services: test state recreated (databases: ${PG_TEST_DBS}; vhosts: ${MQ_TEST_VHOSTS})"
}

case "${1:-start}" in
  start)
    install_packages
    start_postgres
    start_rabbitmq
    ;;
  test)
    install_packages
    start_postgres
    start_rabbitmq
    recreate_test_state
    ;;
  stop)
    as_root service rabbitmq-server stop || true
    as_root service postgresql stop || true
    ;;
  *)
    echo "usage: $0 [start|test|stop]" >&2
    exit 2
    ;;
esac
