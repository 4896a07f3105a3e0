#!/usr/bin/env bash
# Compatibility: a real Kafka admin client (Debian's python3-confluent-kafka, on
# librdkafka) creates, describes, grows and deletes topics on a Strata cluster of one
# controller and three brokers, and checks every effect through Metadata; the newest
# versions (DescribeCluster, CreateTopics v7, DeleteTopics v6 by id) are spoken on a raw
# socket (admin_client_test.py says what is checked).
# Usage: admin_client_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
# Debian's interpreter, where python3-confluent-kafka lives (not a pyenv python3 on PATH),
# or the one with_librdkafka.sh chose (the current librdkafka).
PY=${STRATA_PYTHON:-/usr/bin/python3}
"$PY" -c 'import confluent_kafka' 2>/dev/null ||
  { echo "python3-confluent-kafka is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-admin-test.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 >/dev/null
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
# Dynamic broker configs over broker 2's static ones (DescribeConfigs shows precedence).
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
"$STRATA_BIN_DIR/strata" configs alter --broker 2 --set num.io.threads=4 >/dev/null
"$STRATA_BIN_DIR/strata" configs alter --broker --set num.io.threads=6 --set log.cleaner.threads=2 >/dev/null
timeout 240 "$PY" "$HERE/admin_client_test.py" "$BS"
