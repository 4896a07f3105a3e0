#!/usr/bin/env bash
# Compatibility: kafkajs 2 (Node.js; the version pinned in kafkajs/package-lock.json,
# installed with npm ci into this test's temp dir) produces to a Strata cluster of one
# controller and three brokers and reads back through its consumer groups; kcat reads the same
# data. kafkajs sends only non-flexible versions and ignores the broker's minimums
# (Metadata v6, Produce v7, Fetch v11, ListOffsets v3), so those old versions are what this
# exercises (kafkajs/kafkajs_test.js says what is checked). Topics have replication factor
# 1 and are created with the strata CLI; kafkajs' createTopics is tried when the broker
# advertises CreateTopics. No npm registry means failure, not a skip.
# Usage: kafkajs_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
for tool in node npm kcat; do
  command -v "$tool" >/dev/null || { echo "$tool is not installed" >&2; exit 1; }
done
S="$STRATA_BIN_DIR/strata"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-kafkajs-test.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT

mkdir "$DIR/kafkajs"
cp "$HERE/kafkajs/package.json" "$HERE/kafkajs/package-lock.json" "$HERE/kafkajs/kafkajs_test.js" "$DIR/kafkajs/"
(cd "$DIR/kafkajs" && timeout 300 npm ci --no-audit --no-fund --loglevel=error) ||
  { echo "FAILED: npm ci could not install kafkajs (is the npm registry reachable?)" >&2; exit 1; }

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
CLUSTER_ID=$(sed -n 's/^cluster.id=//p' "$DIR/cluster.env")
"$S" topics create kjs-plain --partitions 6 --replication-factor 1 >/dev/null
"$S" topics create kjs-idempotent --partitions 3 --replication-factor 1 >/dev/null
"$S" topics create kjs-stamped --partitions 3 --replication-factor 1 >/dev/null
"$S" topics create kjs-appended --partitions 2 --replication-factor 1 --config message.timestamp.type=LogAppendTime >/dev/null
(cd "$DIR/kafkajs" && timeout 240 node kafkajs_test.js "$BS" "$CLUSTER_ID")
