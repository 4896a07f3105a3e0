#!/usr/bin/env bash
# Compatibility: Kafka 4.4.0's kafka-metadata-quorum (MetadataQuorumCommand, through a
# broker: AddRaftVoter, RemoveRaftVoter and DescribeQuorum forwarded to the active
# controller) against a dynamic Strata quorum (KIP-853; strata-cluster up --dynamic, three
# controllers, two brokers):
#   describe --status: kraft.version's voters with their directory ids and endpoints;
#   add-controller --command-config node-6/server.properties: the new controller (formatted
#     with --no-initial-controllers) becomes a voter, as `strata quorum describe` shows;
#   remove-controller --controller-id N --controller-directory-id D: it leaves;
#   an unknown key is refused with VOTER_NOT_FOUND's message, an existing id with
#   DUPLICATE_VOTER's;
#   kafka-features describe: kraft.version finalized at 1 (the quorum's KRaftVersion
#   record), supported 0-1.
# Usage: kafka_metadata_quorum_dynamic_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
source "$(dirname "$0")/peers_lib.sh"
tool() { kafka_tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-server "$BS" "$@"; }
field() { sed -n "s/^$1:[[:space:]]*//p" <<<"$status"; }
voters() { "$S" --bootstrap-controller "$(cat "$DIR/voters")" quorum describe -o json | jq -c .voters; }
directory_of() {
  "$S" --bootstrap-controller "$(cat "$DIR/voters")" quorum describe -o json |
    jq -r --argjson id "$1" '.voter_states[] | select(.id == $id) | .directory_id'
}

start_cluster metadata-quorum-dynamic-test --dynamic --controllers 3 --brokers 2

status=$(tool describe --status)
echo "$status"
for id in 1 2 3; do
  dir=$(sed -n 's/^directory.id=//p' "$DIR/node-$id/metadata/meta.properties")
  grep -q "{\"id\": $id, \"directoryId\": \"$dir\", \"endpoints\": \[\"CONTROLLER://127.0.0.1:[0-9]*\"\]}" \
    <<<"$(field CurrentVoters)" || fail "voter $id with directory $dir: $(field CurrentVoters)"
done

"$CLUSTER" add-controller --dir "$DIR" 6 > /dev/null
out=$(tool --command-config "$DIR/node-6/server.properties" add-controller 2>&1) || fail "add-controller: $out"
echo "$out"
[[ $(voters) == "[1,2,3,6]" ]] || fail "after add-controller: $(voters)"

out=$(tool remove-controller --controller-id 6 --controller-directory-id "$(directory_of 2)" 2>&1) && \
  fail "remove-controller with another's directory id: $out"
grep -q "VOTER_NOT_FOUND\|VoterNotFound\|not a voter\|no voter" <<<"$out" || fail "a wrong key: $out"
out=$(tool --command-config "$DIR/node-6/server.properties" add-controller 2>&1) && fail "add-controller twice: $out"
grep -qi "DUPLICATE_VOTER\|DuplicateVoter\|already a voter" <<<"$out" || fail "an existing voter: $out"

leader=$("$S" --bootstrap-controller "$(cat "$DIR/voters")" quorum describe -o json | jq .leader_id)
follower=1; [[ $leader == 1 ]] && follower=2
out=$(tool remove-controller --controller-id "$follower" --controller-directory-id "$(directory_of "$follower")" 2>&1) ||
  fail "remove-controller $follower: $out"
echo "$out"
[[ $(voters | jq length) == 3 && $(voters | jq --argjson f "$follower" 'index($f)') == null ]] ||
  fail "after remove-controller $follower: $(voters)"

features=$(kafka_tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "$BS" describe)
grep -Eq 'Feature: kraft.version\s+SupportedMinVersion: 0\s+SupportedMaxVersion: 1\s+FinalizedVersionLevel: 1' \
  <<<"$features" || fail "kafka-features describe: $features"

finish "kafka-metadata-quorum dynamic test"
