#!/usr/bin/env bash
# Compatibility: the Java client (kafka-clients 4.4.0 from scripts/install-peers.sh, on
# Debian's JDK 17) against a Strata cluster of one controller and three brokers, topics at
# RF 3 with min.insync.replicas=2, two log dirs per broker. The programs are in java/ (compiled here by javac):
#   AdminTest unsupported  every AdminClient call Strata does not serve yet fails at once
#                          with UnsupportedVersionException (docs/compatibility.md);
#   AdminTest served       the calls Strata serves, each checked against what it did;
#   AdminTest alter-log-dirs
#                          alterReplicaLogDirs to the broker's other log dir (each broker
#                          has two), followed to its end with describeReplicaLogDirs;
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
source "$HERE/peers_lib.sh"
KAFKA_LIBS=$(peer KAFKA_LIBS)
# One of the programs; SLF4J's notice that no logger is bound is dropped.
run() { timeout 300 java -cp "$DIR/classes:$KAFKA_LIBS/*" "$@" 2> >(grep -v '^SLF4J' >&2); }

# No initial rebalance delay: the group tests form groups one after another.
start_cluster java-client-test --controllers 1 --brokers 3 --log-dirs 2 --override group.initial.rebalance.delay.ms=0
javac -Xlint:-options -nowarn -d "$DIR/classes" -cp "$KAFKA_LIBS/*" "$HERE"/java/*.java 2>&1 |
  grep -v '^Note:' >&2 || true
[[ -f $DIR/classes/AdminTest.class ]] || { echo "javac failed" >&2; exit 1; }

CLUSTER_ID=$(sed -n 's/^cluster.id=//p' "$DIR/cluster.env")

run AdminTest unsupported "$BS" || fail "AdminTest unsupported"
run AdminTest served "$BS" "$CLUSTER_ID" || fail "AdminTest served"
run AdminTest alter-log-dirs "$BS" || fail "AdminTest alter-log-dirs"
run ProducerTest codecs "$BS" || fail "ProducerTest codecs"
run ConsumerGroupTest "$BS" || fail "ConsumerGroupTest"

# kill -9 of partition 0's leader while the producer has records in flight.
java_producer_across_leader_kill killed "$BS"

finish "Java client test"
