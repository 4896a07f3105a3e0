#!/bin/bash
# The object store's entrypoint: starts MinIO on /data, creates the bucket the brokers tier
# to (an existing one is kept), marks the store ready for the health check, and waits for
# MinIO, passing SIGTERM on (docker stop).
# Env: MINIO_ROOT_USER, MINIO_ROOT_PASSWORD (the credentials, required; the password at
# least 8 characters), STRATA_OBJECT_STORE_ADDRESS (default :9000),
# STRATA_OBJECT_STORE_BUCKET (default strata-tiered).
set -euo pipefail
: "${MINIO_ROOT_USER:?set MINIO_ROOT_USER}" "${MINIO_ROOT_PASSWORD:?set MINIO_ROOT_PASSWORD}"
address=${STRATA_OBJECT_STORE_ADDRESS:-:9000}
bucket=${STRATA_OBJECT_STORE_BUCKET:-strata-tiered}
url="http://127.0.0.1:${address##*:}"
ready=/tmp/object-store-ready
rm -f "$ready"

export MINIO_BROWSER=off MINIO_UPDATE=off
minio server --quiet --address "$address" /data &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null' TERM INT

deadline=$(( $(date +%s) + 60 ))
until curl -sf --max-time 2 "$url/minio/health/live" >/dev/null; do
  kill -0 "$pid" 2>/dev/null || { wait "$pid"; exit $?; }
  (( $(date +%s) < deadline )) || { echo "object-store: MinIO did not answer within 60 s" >&2; kill -TERM "$pid"; exit 1; }
  sleep 0.2  # polling MinIO's health endpoint
done
# 200: made; 409 BucketAlreadyOwnedByYou: there from an earlier start. MinIO is live
# before it serves S3: until then it answers 503 XMinioServerNotInitialized (seen in CI),
# and that (or no answer) is retried until the deadline; any other answer is final.
while true; do
  code=$(curl -sS --max-time 10 -o /tmp/bucket-answer -w '%{http_code}' -X PUT \
           --aws-sigv4 "aws:amz:us-east-1:s3" --user "$MINIO_ROOT_USER:$MINIO_ROOT_PASSWORD" "$url/$bucket" \
           2>/dev/null) || true
  [[ $code == 200 || $code == 409 ]] && break
  if [[ $code != 503 && $code != 000 ]] || (( $(date +%s) >= deadline )); then
    echo "object-store: cannot create the bucket $bucket (HTTP $code): $(cat /tmp/bucket-answer 2>/dev/null)" >&2
    kill -TERM "$pid"; exit 1
  fi
  sleep 0.2  # polling MinIO until it has initialized
done
touch "$ready"
echo "object-store: MinIO on $address, bucket $bucket"
# wait returns early (above 128) when the trap runs: wait again until MinIO has exited,
# and exit with its status.
while true; do
  status=0
  wait "$pid" || status=$?
  kill -0 "$pid" 2>/dev/null || break
done
exit "$status"
