#!/bin/sh
# Run once by the postgres image's entrypoint on a new data directory (mounted at /docker-entrypoint-initdb.d):
# create the Ella roles (ella-roles.psql says which and what each may do) in the application's database.
#
# Why a script around the .psql file: the roles' passwords come from the environment (ELLA_PG_*_PASSWORD) and
# psql reads them with \getenv, so they are never in a file nor on a command line. On a data directory that
# exists already the entrypoint runs nothing: run this by hand (docs/deployment-security.md, "Rotating").
set -eu
psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-postgres}" \
  -f /docker-entrypoint-initdb.d/ella-roles.psql
