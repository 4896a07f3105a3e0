#!/usr/bin/env bash
# Transactions side by side: a 3-node Apache Kafka 4.x cluster in KRaft combined mode
# (kafka_cluster.sh) and then a 3-node Strata cluster (strata-cluster --combined 3), one
# after the other on the same loopback, driven by the same Java client (java/TxnBench.java):
# topics of 3 partitions at RF 3, min.insync.replicas=2, 1 KiB records, acks=all.
#   idempotent / transactional   records/s of the same N records, idempotent and in
#                                transactions of 100 (the cost of transactions);
#   commit_p50 / commit_p99      commitTransaction's latency (ms);
#   read_committed / read_uncommitted
#                                consumption of the transactional topic (records/s);
#   read_committed_half_aborted  read_committed over a topic where every other
#                                transaction is aborted: the aborted-transaction lists
#                                and the consumer's filtering (records/s delivered).
# One RESULT line per figure: Strata's, Kafka's and strata/kafka. Usage (after a Release
# build): tests/bench/txn_bench.sh [STRATA_ROOT]   (N=records, default 100000)
set -euo pipefail
ROOT=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
HERE=$ROOT/tests/bench
N=${N:-100000}
PEERS=${STRATA_PEERS_DIR:-$HOME/.cache/strata-peers}
[[ -f $PEERS/peers.env ]] || bash "$ROOT/scripts/install-peers.sh"
KAFKA_LIBS=$(sed -n 's/^KAFKA_LIBS=//p' "$PEERS/peers.env")
export STRATA_BIN_DIR=$ROOT/build/tools
[[ -x $STRATA_BIN_DIR/strata-server ]] || { echo "no Release build in $ROOT/build" >&2; exit 1; }
DIR=$(mktemp -d "${TMPDIR:-/tmp}/txn-bench.XXXXXX")
cleanup() {
  bash "$HERE/kafka_cluster.sh" down "$DIR/kafka" > /dev/null 2>&1 || true
  "$ROOT/tools/strata-cluster" down --dir "$DIR/strata" > /dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
log() { echo "[$(date +%T)] $*" >&2; }
tool() { timeout 600 java -Xmx512M -cp "$KAFKA_LIBS/*" "$@" 2> >(grep -v '^SLF4J\|deprecated' >&2); }
declare -A FIG

measure() {  # SYSTEM
  local t
  for t in idem txn mixed; do
    tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BS" --create --topic "txn-bench-$t" \
      --partitions 3 --replication-factor 3 --config min.insync.replicas=2 > /dev/null
  done
  while read -r _ name value; do
    FIG[$1.$name]=$value
    log "$1 $name $value"
  done < <(tool "$HERE/java/TxnBench.java" run "$BS" "$N" | grep '^FIGURE')
}

log "Apache Kafka: 3 nodes, KRaft combined"
KAFKA_CLUSTER_PROPERTIES="transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2" bash "$HERE/kafka_cluster.sh" up "$DIR/kafka" 3 > /dev/null
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/kafka/cluster.env")
measure kafka
bash "$HERE/kafka_cluster.sh" down "$DIR/kafka" > /dev/null
rm -rf "$DIR/kafka"

log "Strata: 3 combined nodes"
"$ROOT/tools/strata-cluster" up --dir "$DIR/strata" --combined 3 > /dev/null
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/strata/cluster.env")
measure strata
"$ROOT/tools/strata-cluster" down --dir "$DIR/strata" > /dev/null

row() {  # NAME UNIT BETTER
  local st=${FIG[strata.$1]:-} kf=${FIG[kafka.$1]:-} ratio=n/a
  if [[ $st =~ ^[0-9.]+$ && $kf =~ ^[0-9.]+$ ]] && awk -v k="$kf" 'BEGIN {exit !(k > 0)}'; then
    ratio=$(awk -v s="$st" -v k="$kf" 'BEGIN {printf "%.2f", s / k}')
  fi
  echo "RESULT txn_$1 strata=$st kafka=$kf strata/kafka=$ratio unit=$2 better=$3"
}
row idempotent_records_per_s records/s higher
row transactional_records_per_s records/s higher
row commit_p50_ms ms lower
row commit_p99_ms ms lower
row read_committed_records_per_s records/s higher
row read_uncommitted_records_per_s records/s higher
row read_committed_half_aborted_records_per_s records/s higher
