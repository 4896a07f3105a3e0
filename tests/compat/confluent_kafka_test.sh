#!/usr/bin/env bash
# Compatibility: Debian's python3-confluent-kafka (librdkafka 2.0) produces to and
# consumes from a Strata cluster of one controller and three brokers: an idempotent
# producer with each compression type, explicit and LogAppendTime timestamps, acks 0 and
# 1, a consumer with assign() (no groups), offsets_for_times and get_watermark_offsets
# (confluent_kafka_test.py says what is checked). Topics have replication factor 1,
# spread over the brokers, and are created with the strata CLI.
# Usage: confluent_kafka_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
# Debian's interpreter, where python3-confluent-kafka lives (not a pyenv python3 on PATH),
# or the one with_librdkafka.sh chose (the current librdkafka).
PY=${STRATA_PYTHON:-/usr/bin/python3}
"$PY" -c 'import confluent_kafka' 2>/dev/null ||
  { echo "python3-confluent-kafka is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
S="$STRATA_BIN_DIR/strata"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-confluent-test.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
for topic in codec-none codec-gzip codec-snappy codec-lz4 codec-zstd stamped acks; do
  "$S" topics create "$topic" --partitions 3 --replication-factor 1 >/dev/null
done
"$S" topics create appended --partitions 2 --replication-factor 1 --config message.timestamp.type=LogAppendTime >/dev/null
timeout 240 "$PY" "$HERE/confluent_kafka_test.py" "$BS"
