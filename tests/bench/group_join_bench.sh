#!/usr/bin/env bash
# A member joining a consuming group: the classic protocol (eager and cooperative) against
# KIP-848's consumer protocol, with the Java client (java/GroupJoinBench.java: the joining
# member's time to its partitions and the longest pause of the member already there),
# on a Strata cluster (1 controller, 3 brokers) and, as the baseline of the same run, an
# Apache Kafka 4.4 cluster of 3 combined nodes (kafka_cluster.sh), both with their
# defaults. ROUNDS rounds (default 5), kinds alternating; RESULT lines per system and kind.
# Usage: group_join_bench.sh <bin dir> <strata-cluster> [ROUNDS] [--no-kafka]
set -euo pipefail
BIN=${1:?usage: $0 <bin dir> <strata-cluster> [ROUNDS] [--no-kafka]}
CLUSTER=${2:?}
export STRATA_BIN_DIR=$BIN
ROUNDS=${3:-5}
KAFKA=1
[[ ${4:-} == --no-kafka ]] && KAFKA=""
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=${STRATA_PEERS_DIR:-$HOME/.cache/strata-peers}
KAFKA_LIBS=$(sed -n 's/^KAFKA_LIBS=//p' "$PEERS/peers.env")
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-join-bench.XXXXXX")
cleanup() {
  "$CLUSTER" down --dir "$DIR/strata" > /dev/null 2>&1 || true
  [[ -z $KAFKA ]] || bash "$HERE/kafka_cluster.sh" down "$DIR/kafka" > /dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
javac -Xlint:-options -nowarn -d "$DIR/classes" -cp "$KAFKA_LIBS/*" "$HERE/../compat/java/Check.java" \
  "$HERE/java/GroupJoinBench.java" 2>&1 | grep -v '^Note:' >&2 || true
bench() { java -cp "$DIR/classes:$KAFKA_LIBS/*" GroupJoinBench "$@" 2> >(grep -v '^SLF4J' >&2); }
KINDS=(classic-eager classic-cooperative consumer)

"$CLUSTER" up --dir "$DIR/strata" --controllers 1 --brokers 3 > /dev/null
bench strata "$(sed -n 's/^bootstrap.servers=//p' "$DIR/strata/cluster.env")" "$ROUNDS" "${KINDS[@]}"
"$CLUSTER" down --dir "$DIR/strata" > /dev/null
if [[ -n $KAFKA ]]; then
  bash "$HERE/kafka_cluster.sh" up "$DIR/kafka" 3 > /dev/null
  bench kafka "$(sed -n 's/^bootstrap.servers=//p' "$DIR/kafka/cluster.env")" "$ROUNDS" "${KINDS[@]}"
fi
