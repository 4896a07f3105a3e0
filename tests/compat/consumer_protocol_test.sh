#!/usr/bin/env bash
# KIP-848's consumer protocol (group.protocol=consumer) with the Java client (kafka-clients
# 4.4.0 from scripts/install-peers.sh) against one controller and three brokers:
#   ConsumerProtocolTest (java/)  a member joins while another keeps reading, commit and
#                                 resume, static members, describeConsumerGroups and
#                                 listGroups;
#   kill -9 of the coordinator    two members of a group read a topic, committing as they
#                                 go; once they split it, the broker coordinating the
#                                 group is killed with -9 and more records are written.
#                                 The next coordinator loads the group as it was (same
#                                 group epoch, both members, Stable: nobody rejoined) and
#                                 the members read every record.
# Usage: consumer_protocol_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/peers_lib.sh"
KAFKA_LIBS=$(peer KAFKA_LIBS)
run() { timeout 300 java -cp "$DIR/classes:$KAFKA_LIBS/*" "$@" 2> >(grep -v '^SLF4J' >&2); }

start_cluster kip848-test --controllers 1 --brokers 3
javac -Xlint:-options -nowarn -d "$DIR/classes" -cp "$KAFKA_LIBS/*" "$HERE/java/Check.java" \
  "$HERE/java/GroupMember.java" "$HERE/java/ConsumerProtocolTest.java" 2>&1 | grep -v '^Note:' >&2 || true
[[ -f $DIR/classes/ConsumerProtocolTest.class ]] || { echo "javac failed" >&2; exit 1; }

run ConsumerProtocolTest "$BS" || fail "ConsumerProtocolTest"

# --- kill -9 of the group's coordinator -------------------------------------------------
produce() {
  kafka_tool org.apache.kafka.tools.ProducerPerformance --topic failover --num-records "$1" --record-size 100 \
    --throughput -1 --producer-props "bootstrap.servers=$BS" acks=all > /dev/null
}
"$S" topics create failover --partitions 6 --replication-factor 3 --config min.insync.replicas=2 > /dev/null
produce 20000
for i in 1 2; do
  run ConsumerProtocolTest consume "$BS" failover-group failover 40000 "$DIR/members" "$DIR/stop" &
  BACKGROUND+=("$!")
done
consumers=("${BACKGROUND[@]: -2}")
# Both members in, the group Stable (each reconciled), before the kill.
before=$(run ConsumerProtocolTest await "$BS" failover-group 2 -1) || fail "the two members did not settle"
read -r coordinator epoch _ <<< "$before"
# strata groups describe shows the consumer group as Kafka's tools do, with its epochs.
described=$("$S" groups describe failover-group --members -o json)
summary=$(jq -r '.[0] | .assignment_epoch as $a |
  "\(.type) \(.state) \(.group_epoch) \(.member_count) \([.members[].partition_count] | add) \([.members[] | .member_epoch == $a] | all)"' <<< "$described")
[[ $summary == "consumer Stable $epoch 2 6 true" ]] || fail "strata groups describe: $summary ($described)"
"$S" groups list | grep -q "^failover-group *consumer *Stable" || fail "strata groups list: $("$S" groups list)"
echo "killing broker $coordinator, the coordinator of failover-group at group epoch $epoch"
"$CLUSTER" kill --dir "$DIR" "$coordinator"
produce 20000
after=$(run ConsumerProtocolTest await "$BS" failover-group 2 "$coordinator") || fail "no coordinator took the group over"
echo "after the kill: coordinator, group epoch, state, members: $after"
[[ $after == *" $epoch Stable 2" ]] || fail "the group after the failover: $after (before: $before)"
touch "$DIR/stop"
for p in "${consumers[@]}"; do wait "$p" || fail "a member did not read all 40000 records"; done
"$CLUSTER" start --dir "$DIR" "$coordinator" > /dev/null

finish "Consumer protocol (KIP-848) test"
