#!/bin/sh
# The minio-init one-shot (image minio/mc): the pictures' bucket and the workers' own MinIO user, who may read,
# write and delete the bucket's objects and nothing else (deploy/minio/images-policy.json). The root credentials
# stay with this script and the minio service; the workers sign the gateway's picture URLs with their own key.
# Runs at every `docker compose up`; each step may run again: a bucket or user that exists is kept, the policy is
# written again, and attaching it again is not an error.
#
# The bucket is `ella-images` (ELLA_S3_BUCKET's default): a bucket of another name needs the policy changed too.
set -eu
mc alias set ella http://minio:9000 "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" >/dev/null
mc mb --ignore-existing ella/ella-images
mc admin user add ella "$ELLA_S3_ACCESS_KEY" "$ELLA_S3_SECRET_KEY" >/dev/null
mc admin policy create ella ella-images /etc/ella/minio/images-policy.json
mc admin policy attach ella ella-images --user "$ELLA_S3_ACCESS_KEY" || echo "policy ella-images already attached"
