#!/usr/bin/env bash
# Installs Strata's build and test dependencies from Debian 12's packages.
# Idempotent: when every package is already installed it only checks and exits.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libgrpc++-dev protobuf-compiler protobuf-compiler-grpc libprotobuf-dev
  libabsl-dev librocksdb-dev libssl-dev libasio-dev libcurl4-openssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev prometheus-cpp-dev
  zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev libjemalloc-dev libre2-dev
  jq curl python3 clang libclang-rt-14-dev kcat python3-confluent-kafka
  nodejs
  # the deploy test (tests/deploy/): a Docker engine, compose v1, a base image without a registry
  docker.io docker-compose debootstrap
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# npm for the kafkajs compat test: Debian packages it apart from nodejs; a NodeSource
# nodejs (as on the CI image) brings its own, and Debian's npm would conflict with it.
if ! command -v npm >/dev/null; then missing+=(npm); fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
