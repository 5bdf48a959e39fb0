#!/bin/sh
# The pgbouncer container's entry point: write PgBouncer's auth file from the environment, then run the image's
# own entry point (edoburu/pgbouncer: it renders pgbouncer.ini from DB_HOST, POOL_MODE, AUTH_FILE ... and execs
# the command).
#
# Why here: the image writes one user's line (DB_USER, DB_PASSWORD); our stack has a role per process kind
# (deploy/postgres/init/ella-roles.psql), and each connects through PgBouncer as itself. The passwords live in
# the environment (compose passes them), never in a file of the repository or of the image. The file is on a
# tmpfs readable by PgBouncer's user only. It holds the passwords in plain text: with scram-sha-256 PgBouncer
# needs them (or the server's own SCRAM secrets) to log in to PostgreSQL as the client's role.
# Role names are the defaults of ella-roles.psql; passwords are URL-safe (docker-compose.yml), so no quoting.
set -eu
list=${AUTH_FILE:-/run/ella-pgbouncer/userlist.txt}
umask 077
mkdir -p "$(dirname "$list")"
rm -f "$list" # a restart may find the last one, read-only
: >"$list"
for pair in ella_worker:ELLA_PG_WORKER_PASSWORD ella_beat:ELLA_PG_BEAT_PASSWORD ella_inspect:ELLA_PG_INSPECT_PASSWORD; do
  role=${pair%%:*}
  variable=${pair#*:}
  eval "password=\${$variable:-}"
  if [ -z "$password" ]; then
    echo "pgbouncer: set $variable (the password of $role)" >&2
    exit 1
  fi
  printf '"%s" "%s"\n' "$role" "$password" >>"$list"
done
chmod 0400 "$list"
unset ELLA_PG_WORKER_PASSWORD ELLA_PG_BEAT_PASSWORD ELLA_PG_INSPECT_PASSWORD password
exec /entrypoint.sh "$@"
