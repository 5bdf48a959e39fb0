#!/bin/sh
# Render deploy/redis/users.acl.template into a Redis ACL file: render-acl.sh TEMPLATE OUTPUT
#
# Why a script and not a checked-in ACL file: the file must hold the users' passwords (as SHA-256 hashes), which
# come from the environment (or from files, e.g. compose secrets), and the key names follow the same ELLA_*
# settings the processes read. POSIX sh, sed, awk and sha256sum only: it runs in the redis:7 image, and
# tests/test_least_privilege.py runs it too, so the rules it tests are the rules Redis loads.
#
# Input: ELLA_REDIS_<USER>_PASSWORD or ELLA_REDIS_<USER>_PASSWORD_FILE for USER in GATEWAY WORKER BEAT FLOWER
# METRICS (required, non-empty); ELLA_REDIS_KEY_PREFIX, ELLA_QUEUE_INBOUND, ELLA_QUEUE_COGNITION, ELLA_QUEUE_BATCH,
# ELLA_OUTBOX_STREAM, ELLA_REDIS_DB (defaults: the application's, adapters/settings.py; database 0).
set -eu

template=${1:?usage: render-acl.sh TEMPLATE OUTPUT}
output=${2:?usage: render-acl.sh TEMPLATE OUTPUT}

prefix=${ELLA_REDIS_KEY_PREFIX:-ella}
inbound=${ELLA_QUEUE_INBOUND:-inbound}
cognition=${ELLA_QUEUE_COGNITION:-cognition}
batch=${ELLA_QUEUE_BATCH:-batch}
outbox=${ELLA_OUTBOX_STREAM:-ella:outbox}
db=${ELLA_REDIS_DB:-0}
# A client on database N > 0 sends SELECT N when it connects; on database 0 it sends none, and none is granted.
# SELECT cannot be tied to one database number; the key patterns still bound what each user may touch.
if [ "${db}" = "0" ]; then select_rule=""; else select_rule="+select"; fi

# A name goes into sed's replacement and into an ACL pattern: keep it to characters that mean nothing to either.
for name in "$prefix" "$inbound" "$cognition" "$batch" "$outbox" "$db"; do
  case $name in
    '' | *[!A-Za-z0-9:._-]*)
      echo "render-acl: key name '$name' must be letters, digits and : . _ - only" >&2
      exit 2
      ;;
  esac
done

hash_of() { # the "#<sha256>" password rule of user $1, from ELLA_REDIS_$1_PASSWORD(_FILE)
  eval "value=\${ELLA_REDIS_$1_PASSWORD-}"
  eval "file=\${ELLA_REDIS_$1_PASSWORD_FILE-}"
  if [ -z "$value" ] && [ -n "$file" ]; then
    value=$(cat "$file")
  fi
  if [ -z "$value" ]; then
    echo "render-acl: set ELLA_REDIS_$1_PASSWORD (or ELLA_REDIS_$1_PASSWORD_FILE)" >&2
    exit 2
  fi
  printf '#%s' "$(printf '%s' "$value" | sha256sum | cut -d' ' -f1)"
}

gateway=$(hash_of GATEWAY)
worker=$(hash_of WORKER)
beat=$(hash_of BEAT)
flower=$(hash_of FLOWER)
metrics=$(hash_of METRICS)

umask 077
tmp="$output.tmp.$$"
sed -e '/^#/d' -e '/^[[:space:]]*$/d' \
  -e "s|@PREFIX@|$prefix|g" -e "s|@QUEUE_INBOUND@|$inbound|g" -e "s|@QUEUE_COGNITION@|$cognition|g" \
  -e "s|@QUEUE_BATCH@|$batch|g" -e "s|@OUTBOX_STREAM@|$outbox|g" -e "s|@DB@|$db|g" -e "s|@SELECT@|$select_rule|g" \
  -e "s|@PASSWORD_GATEWAY@|$gateway|g" -e "s|@PASSWORD_WORKER@|$worker|g" \
  -e "s|@PASSWORD_BEAT@|$beat|g" -e "s|@PASSWORD_FLOWER@|$flower|g" -e "s|@PASSWORD_METRICS@|$metrics|g" \
  "$template" |
  awk '/^[[:space:]]/ { sub(/^[[:space:]]+/, ""); line = line " " $0; next }
       { if (line != "") print line; line = $0 }
       END { if (line != "") print line }' >"$tmp"
if grep -q '@[A-Z_]*@' "$tmp"; then
  echo "render-acl: unknown placeholder left in $template" >&2
  rm -f "$tmp"
  exit 2
fi
mv "$tmp" "$output"
