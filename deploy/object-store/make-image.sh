#!/usr/bin/env bash
# Builds the object store's image (deploy/object-store/Dockerfile) with the MinIO binary of
# scripts/install-peers.sh (built there once, cached), for docker-compose.object-store.yml.
#   deploy/object-store/make-image.sh [TAG]      (default strata-object-store:latest)
# Needs debian:12 (deploy/make-base-image.sh makes it where nothing can be pulled).
# DOCKER names the docker client (default: docker).
set -euo pipefail
tag=${1:-strata-object-store:latest}
docker=${DOCKER:-docker}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
peers=${STRATA_PEERS_DIR:-$HOME/.cache/strata-peers}
bash "$root/scripts/install-peers.sh" minio >&2
minio=$(sed -n 's/^MINIO=//p' "$peers/peers.env")
[[ -x $minio ]] || { echo "make-image: no MinIO binary at '$minio'" >&2; exit 1; }

context=$(mktemp -d /tmp/strata-object-store-image.XXXXXX)
trap 'rm -rf "$context"' EXIT
cp "$here/Dockerfile" "$here/entrypoint.sh" "$here/healthcheck" "$context/"
cp "$minio" "$context/minio"
chmod 755 "$context/entrypoint.sh" "$context/healthcheck" "$context/minio"
previous=$("$docker" image inspect -f '{{.Id}}' "$tag" 2>/dev/null || true)
# The legacy builder is enough (no cache mounts), so any client builds it.
if ! DOCKER_BUILDKIT=0 "$docker" build -q -t "$tag" "$context" >"$context.log" 2>&1; then
  tail -n 30 "$context.log" >&2; rm -f "$context.log"
  echo "make-image: docker build of $tag failed" >&2; exit 1
fi
rm -f "$context.log"
# The image the tag named before is not kept (builds would pile up untagged images).
current=$("$docker" image inspect -f '{{.Id}}' "$tag")
if [[ -n $previous && $previous != "$current" ]]; then "$docker" rmi "$previous" >/dev/null 2>&1 || true; fi
echo "make-image: $tag ($(sed -n 's/^MINIO_VERSION=//p' "$peers/peers.env"))"
