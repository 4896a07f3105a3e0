#!/usr/bin/env bash
# Compatibility: every Kafka codec (none, gzip, snappy, lz4, zstd) end to end on a Strata
# cluster of one controller and three brokers, with kcat and Debian's
# python3-confluent-kafka (librdkafka 2.0) producing and consuming, raw Produce requests
# (tests/cluster/kafka_probe.py) for the xerial snappy framing and corrupt batches, and
# strata-storage dump reading the stored batches' codecs: round trips per codec,
# offsets_for_times exact inside compressed batches, the topic setting compression.type
# (recompression to each codec, uncompressed, producer), LogAppendTime on compressed
# batches, corrupt batches refused per partition, zstd refused with
# UNSUPPORTED_COMPRESSION_TYPE to Produce < v7 and to Fetch < v10 of a zstd topic
# (compression_test.py says what is checked). Topics have replication factor 1, spread over the brokers, and are created
# with the strata CLI.
# Usage: compression_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
command -v kcat >/dev/null || { echo "kcat is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
# Debian's interpreter, where python3-confluent-kafka lives (not a pyenv python3 on PATH),
# or the one with_librdkafka.sh chose (the current librdkafka).
PY=${STRATA_PYTHON:-/usr/bin/python3}
"$PY" -c 'import confluent_kafka' 2>/dev/null ||
  { echo "python3-confluent-kafka is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
S="$STRATA_BIN_DIR/strata"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-compression-test.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
create() { "$S" topics create "$@" --replication-factor 1 >/dev/null; }
for codec in none gzip snappy lz4 zstd; do
  create "kcat-$codec" --partitions 3
  create "ck-$codec" --partitions 3
done
for codec in gzip snappy zstd; do create "times-$codec" --partitions 1; done
# librdkafka sends lz4 uncompressed to brokers without FindCoordinator: the broker makes these lz4.
create times-lz4 --partitions 1 --config compression.type=lz4
for setting in zstd uncompressed gzip snappy lz4 producer; do
  create "recompress-$setting" --partitions 3 --config "compression.type=$setting"
done
create appended --partitions 1 --config message.timestamp.type=LogAppendTime
create appended-gzip --partitions 1 --config message.timestamp.type=LogAppendTime --config compression.type=gzip
# Four partitions over three brokers: one broker leads two (a request to both); a
# max.message.bytes of 256 KiB puts the decompression bound at its 16 MiB floor.
create raw --partitions 4 --config max.message.bytes=262144
create raw-zstd --partitions 1 --config compression.type=zstd
# zstd against Produce < v7 and Fetch < v10: four partitions again for a request to two;
# three of each fetch topic, so that one broker leads a partition of both.
create zstd-versions --partitions 4
create zstd-fetch --partitions 3 --config compression.type=zstd
create zstd-fetch-beside --partitions 3
timeout 240 "$PY" "$HERE/compression_test.py" "$BS" "$DIR" "$STRATA_BIN_DIR"
