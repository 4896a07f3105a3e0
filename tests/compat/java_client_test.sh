#!/usr/bin/env bash
# Compatibility: the Java client (kafka-clients 4.4.0 from scripts/install-peers.sh, on
# Debian's JDK 17) against a Strata cluster of one controller and three brokers, topics at
# RF 3 with min.insync.replicas=2. The programs are in java/ (compiled here by javac):
#   AdminTest unsupported  every AdminClient call Strata does not serve yet fails at once
#                          with UnsupportedVersionException (docs/compatibility.md);
#   AdminTest served       the calls Strata serves, each checked against what it did;
#   ProducerTest codecs    acks=all, idempotent, each codec, headers, read back;
#   ConsumerGroupTest      range, cooperative-sticky and static members, commit and resume,
#                          seek, offsetsForTimes;
#   ProducerTest produce / verify
#                          an idempotent producer across a kill -9 of a partition leader:
#                          every acknowledged value stored, none twice.
# Usage: java_client_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=${STRATA_PEERS_DIR:-$HOME/.cache/strata-peers}
[[ -f $PEERS/peers.env ]] || { echo "no test peers in $PEERS: bash scripts/install-peers.sh" >&2; exit 1; }
KAFKA_LIBS=$(sed -n 's/^KAFKA_LIBS=//p' "$PEERS/peers.env")
S="$STRATA_BIN_DIR/strata"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-java-client-test.XXXXXX")
producer=
cleanup() {
  [[ -n $producer ]] && kill "$producer" 2> /dev/null
  "$CLUSTER" down --dir "$DIR" > /dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }
# One of the programs; SLF4J's notice that no logger is bound is dropped.
run() { timeout 300 java -cp "$DIR/classes:$KAFKA_LIBS/*" "$@" 2> >(grep -v '^SLF4J' >&2); }

javac -Xlint:-options -nowarn -d "$DIR/classes" -cp "$KAFKA_LIBS/*" "$HERE"/java/*.java 2>&1 |
  grep -v '^Note:' >&2 || true
[[ -f $DIR/classes/AdminTest.class ]] || { echo "javac failed" >&2; exit 1; }

# No initial rebalance delay: the group tests form groups one after another.
"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 --override group.initial.rebalance.delay.ms=0 > /dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
CLUSTER_ID=$(sed -n 's/^cluster.id=//p' "$DIR/cluster.env")

run AdminTest unsupported "$BS" || fail "AdminTest unsupported"
run AdminTest served "$BS" "$CLUSTER_ID" || fail "AdminTest served"
run ProducerTest codecs "$BS" || fail "ProducerTest codecs"
run ConsumerGroupTest "$BS" || fail "ConsumerGroupTest"

# kill -9 of partition 0's leader while the producer has records in flight.
"$S" topics create killed --partitions 3 --replication-factor 3 --config min.insync.replicas=2 > /dev/null
run ProducerTest produce "$BS" killed 20000 "$DIR/acked" &
producer=$!
for _ in $(seq 600); do
  [[ -f $DIR/acked && $(wc -l < "$DIR/acked") -ge 3000 ]] && break
  kill -0 "$producer" 2> /dev/null || break
  sleep 0.1
done
leader=$("$S" topics describe killed -o json | jq -r '.[0].partitions[] | select(.partition == 0) | .leader')
echo "killing broker $leader (partition 0's leader) after $(wc -l < "$DIR/acked") acknowledgements"
"$CLUSTER" kill --dir "$DIR" "$leader"
wait "$producer" || fail "ProducerTest produce across the kill"
producer=
"$CLUSTER" start --dir "$DIR" "$leader" > /dev/null
run ProducerTest verify "$BS" killed "$DIR/acked" || fail "ProducerTest verify"
[[ $(wc -l < "$DIR/acked") == 20000 ]] || fail "$(wc -l < "$DIR/acked") of 20000 acknowledged"

if (( failures > 0 )); then exit 1; fi
echo "Java client test passed"
