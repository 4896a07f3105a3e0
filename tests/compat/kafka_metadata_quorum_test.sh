#!/usr/bin/env bash
# Compatibility: kafka-metadata-quorum (Kafka 4.4.0's MetadataQuorumCommand, through a
# broker: DescribeQuorum v2 forwarded to the active controller) against a Strata cluster
# of three controllers and three brokers:
#   describe --status: the leader, epoch and high watermark `strata quorum describe`
#     gives, the three voters with their controller endpoints, the brokers as observers;
#   describe --replication: one Leader and two Followers caught up, three Observers;
#   after a kill -9 of the leading controller: a new leader in a later epoch, and the
#     killed voter lagging, never heard from in the new epoch (LastFetchTimestamp -1).
# Usage: kafka_metadata_quorum_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
source "$(dirname "$0")/peers_lib.sh"
quorum() { kafka_tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-server "$BS" describe "$@"; }
field() { sed -n "s/^$1:[[:space:]]*//p" <<<"$status"; }

start_cluster metadata-quorum-test --controllers 3 --brokers 3

status=$(quorum --status)
echo "$status"
strata_leader=$("$S" quorum describe -o json | jq -r .leader_id)
[[ $(field LeaderId) == "$strata_leader" ]] || fail "LeaderId $(field LeaderId), strata says $strata_leader"
[[ $(field ClusterId) == $(sed -n 's/^cluster.id=//p' "$DIR/cluster.env") ]] || fail "ClusterId $(field ClusterId)"
epoch=$(field LeaderEpoch)
[[ $epoch -ge 1 && $(field HighWatermark) -ge 1 ]] || fail "LeaderEpoch $epoch, HighWatermark $(field HighWatermark)"
for id in 1 2 3; do
  port=$(tr ',' '\n' <<<"$STRATA_BOOTSTRAP_CONTROLLER" | sed -n "s/^$id@127.0.0.1://p")
  grep -q "{\"id\": $id, \"endpoints\": \[\"CONTROLLER://127.0.0.1:$port\"\]}" <<<"$(field CurrentVoters)" ||
    fail "voter $id with its endpoint 127.0.0.1:$port: $(field CurrentVoters)"
done
[[ $(field CurrentObservers) == '[{"id": 4}, {"id": 5}, {"id": 6}]' ]] || fail "observers: $(field CurrentObservers)"

replication=$(quorum --replication)
echo "$replication"
rows() { awk -v s="$1" '$NF == s {print $1}' <<<"$replication" | sort | tr '\n' ' '; }
[[ $(rows Leader) == "$strata_leader " ]] || fail "Leader row: $(rows Leader)"
[[ $(rows Follower | wc -w) == 2 && $(rows Observer) == "4 5 6 " ]] || fail "Follower/Observer rows"
# Followers are caught up with a fetch time; the leader reports -1 for its own.
awk '$NF == "Follower" && ($4 != 0 || $5 < 0) {bad = 1} $NF == "Leader" && $5 != -1 {bad = 1} END {exit bad}' \
  <<<"$replication" || fail "voters' lag or fetch times"

# kill -9 of the leading controller: a new leader, a later epoch, the old one lagging.
"$CLUSTER" kill --dir "$DIR" "$strata_leader"
for _ in $(seq 200); do
  new=$("$S" quorum describe -o json 2> /dev/null | jq -r .leader_id) || true
  [[ -n $new && $new != "$strata_leader" && $new != -1 && $new != 0 ]] && break
  sleep 0.1
done
"$S" topics create after-failover --partitions 1 --replication-factor 3 > /dev/null  # moves the high watermark
status=$(quorum --status)
echo "$status"
[[ $(field LeaderId) == "$new" && $(field LeaderId) != "$strata_leader" ]] || fail "after the kill: LeaderId $(field LeaderId)"
[[ $(field LeaderEpoch) -gt $epoch ]] || fail "after the kill: LeaderEpoch $(field LeaderEpoch) not above $epoch"
replication=$(quorum --replication)
echo "$replication"
awk -v id="$strata_leader" '$1 == id && $NF == "Follower" && $4 > 0 && $5 == -1 {found = 1} END {exit !found}' \
  <<<"$replication" || fail "the killed controller $strata_leader is not a lagging follower never heard from"

finish "kafka-metadata-quorum test"
