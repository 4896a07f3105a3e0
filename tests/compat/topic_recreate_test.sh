#!/usr/bin/env bash
# Compatibility: a topic deleted and created again with fewer partitions, consumed in a
# group by confluent-kafka (topic_recreate_test.py says what is checked) on a Strata
# cluster of one controller and three brokers. Registered twice, with Debian's
# librdkafka 2.0.2 and with the current one (with_librdkafka.sh sets STRATA_PYTHON).
# Usage: topic_recreate_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${STRATA_PYTHON:-/usr/bin/python3}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-topic-recreate-test.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 --override group.initial.rebalance.delay.ms=0 > /dev/null
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
CONTROLLERS=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
timeout 240 "$PY" "$HERE/topic_recreate_test.py" "$BS" "$STRATA_BIN_DIR/strata" "$CONTROLLERS"
