#!/bin/sh
# The redis container's entry point: render the ACL file from the environment, then start Redis with it.
#
# Why at start-up: the passwords live in the environment (compose passes them), never in a file of the
# repository or of the image. The file is written inside the container (not on the data volume), readable by the
# redis user only, and holds SHA-256 hashes. Then the image's own entry point runs (it drops to the redis user).
set -eu
acl=/run/ella-redis/users.acl
mkdir -p /run/ella-redis
sh /etc/ella/redis/render-acl.sh /etc/ella/redis/users.acl.template "$acl"
if [ "$(id -u)" = 0 ]; then
  chown -R redis:redis /run/ella-redis
fi
chmod 0700 /run/ella-redis
chmod 0400 "$acl"
exec docker-entrypoint.sh "$@" --aclfile "$acl"
