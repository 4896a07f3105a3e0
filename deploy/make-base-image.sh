#!/usr/bin/env bash
# Makes the debian:12 image that deploy/Dockerfile starts FROM, without a registry: a
# minimal Debian 12 (bookworm) root file system from debootstrap, imported with
# `docker import`. For machines that cannot pull images; elsewhere `docker pull debian:12`
# does the same. Needs root and debootstrap.
#   deploy/make-base-image.sh [TAG]          (default debian:12)
# The mirror is this machine's (the first URIs of /etc/apt/sources.list.d/debian.sources,
# else deb.debian.org), and so are the image's apt sources when that file exists.
# DOCKER names the docker client (default: docker).
set -euo pipefail
tag=${1:-debian:12}
docker=${DOCKER:-docker}
sources=/etc/apt/sources.list.d/debian.sources
mirror=http://deb.debian.org/debian
if [[ -r $sources ]]; then
  first=$(sed -n 's/^URIs: *//p' "$sources" | head -n 1 | cut -d' ' -f1)
  mirror=${first:-$mirror}
fi

rootfs=$(mktemp -d /tmp/strata-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
log="$rootfs.log"
echo "make-base-image: debootstrap bookworm from $mirror (log: $log)"
if ! debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  echo "make-base-image: debootstrap failed" >&2
  exit 1
fi
if [[ -r $sources ]]; then
  rm -f "$rootfs/etc/apt/sources.list"
  cp "$sources" "$rootfs/etc/apt/sources.list.d/debian.sources"
fi
# No downloaded packages or package lists in the image: each build runs apt-get update.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | "$docker" import - "$tag" >/dev/null
rm -f "$log"
echo "make-base-image: $tag made"
