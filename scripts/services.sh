#!/usr/bin/env bash
# Installs (Debian packages) and starts the real PostgreSQL and RabbitMQ the test tiers run
# against, then creates the database role, the database and the broker vhost they use.
# Idempotent: safe to run on every `make test`.
set -euo pipefail

PG_USER="${SKILLGATE_PG_USER:-skillgate}"
PG_PASSWORD="${SKILLGATE_PG_PASSWORD:-skillgate}"
PG_DB="${SKILLGATE_PG_DB:-skillgate}"
MQ_USER="${SKILLGATE_MQ_USER:-skillgate}"
MQ_PASSWORD="${SKILLGATE_MQ_PASSWORD:-skillgate}"
MQ_VHOSTS="${SKILLGATE_MQ_VHOSTS:-skillgate skillgate-test skillgate-bench}"

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_packages() {
  local missing=()
  command -v pg_ctlcluster >/dev/null 2>&1 || missing+=(postgresql)
  command -v rabbitmqctl >/dev/null 2>&1 || missing+=(rabbitmq-server)
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v git >/dev/null 2>&1 || missing+=(git)
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "services: installing ${missing[*]} from Debian"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

start_postgres() {
  as_root service postgresql start >/dev/null
  for _ in $(seq 1 60); do
    as_root su postgres -c "pg_isready -q" && break
    sleep 1
  done
  as_root su postgres -c "psql -qtAc \"SELECT 1 FROM pg_roles WHERE rolname='${PG_USER}'\"" | grep -q 1 \
    || as_root su postgres -c "psql -qc \"CREATE ROLE ${PG_USER} LOGIN CREATEDB PASSWORD '${PG_PASSWORD}'\""
  as_root su postgres -c "psql -qtAc \"SELECT 1 FROM pg_database WHERE datname='${PG_DB}'\"" | grep -q 1 \
    || as_root su postgres -c "createdb -O ${PG_USER} ${PG_DB}"
  echo "services: PostgreSQL ready (postgres://${PG_USER}:***@127.0.0.1:5432/${PG_DB})"
}

start_rabbitmq() {
  as_root service rabbitmq-server start >/dev/null || true
  for _ in $(seq 1 90); do
    as_root rabbitmqctl -q await_startup >/dev/null 2>&1 && break
    sleep 1
  done
  as_root rabbitmqctl -q await_startup
  as_root rabbitmq-plugins -q enable rabbitmq_management >/dev/null 2>&1 || true
  as_root rabbitmqctl -q list_users | grep -q "^${MQ_USER}\b" \
    || as_root rabbitmqctl -q add_user "${MQ_USER}" "${MQ_PASSWORD}"
  as_root rabbitmqctl -q set_user_tags "${MQ_USER}" administrator
  for vhost in ${MQ_VHOSTS}; do
    as_root rabbitmqctl -q list_vhosts | grep -qx "${vhost}" \
      || as_root rabbitmqctl -q add_vhost "${vhost}"
    as_root rabbitmqctl -q set_permissions -p "${vhost}" "${MQ_USER}" ".*" ".*" ".*"
  done
  echo "services: RabbitMQ ready (amqp://${MQ_USER}:***@127.0.0.1:5672/, vhosts: ${MQ_VHOSTS})"
}

case "${1:-start}" in
  start)
    install_packages
    start_postgres
    start_rabbitmq
    ;;
  stop)
    as_root service rabbitmq-server stop || true
    as_root service postgresql stop || true
    ;;
  *)
    echo "usage: $0 [start|stop]" >&2
    exit 2
    ;;
esac
