#!/usr/bin/env bash
# A dynamic controller quorum (KIP-853) with real processes: 3 controllers formatted with
# --initial-controllers and 2 brokers started by `strata-cluster up --dynamic`, driven
# with the strata CLI while records flow (kcat):
#  * describe shows kraft.version 1, the three voters with their directory ids;
#  * a voter change with a wrong key or an existing id is refused with Kafka's error;
#  * a new controller (add-controller: --no-initial-controllers) is added as a voter
#    (add-voter --config: it catches up first) and the quorum holds 4;
#  * a follower restarted on another port tells the leader its new endpoint
#    (UpdateRaftVoter) and is replicated to there;
#  * a follower is removed and stopped; with another follower stopped, removing the
#    last live follower is refused (it would lose the quorum), and changes nothing;
#  * the leader itself is removed: it steps down, a remaining voter leads, and the old
#    leader is stopped;
#  * afterwards the brokers reach the new active controller (a topic made now is hosted,
#    they stay unfenced) and every record produced before, between and after the changes
#    is read back once;
#  * a remaining voter's metadata log holds the configurations as Kafka's control records
#    (strata-storage dump): KRaftVersion 1 and one KRaftVoters per change.
# Waits are conditions polled with deadlines. Every process is stopped at the end.
# Usage: dynamic_quorum_test.sh <dir with strata-server, strata, strata-storage> <strata-cluster>
set -euo pipefail

export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?usage: $0 <bin dir> <strata-cluster>}
source "$(dirname "$0")/cluster_lib.sh" dynamic-quorum
has_voters() { [[ "$(voters)" == "$1" ]]; }
led_by_one_of() { local l; l=$(leader); for v in "$@"; do [[ "$l" == "$v" ]] && return 0; done; return 1; }

"$CLUSTER" up --dir "$DIR" --dynamic --controllers 3 --brokers 2 >"$DIR/up.out"
SERVERS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
grep -q '^controller.quorum.bootstrap.servers=' "$DIR/node-1/server.properties" || fail "node 1 is not configured dynamic"

echo "== a dynamic quorum of three"
q=$(quorum)
[[ $(jq '.kraft_version' <<<"$q") == 1 ]] || fail "kraft_version: $q"
[[ $(jq -c '.voters' <<<"$q") == "[1,2,3]" ]] || fail "voters: $q"
for id in 1 2 3; do
  want=$(sed -n 's/^directory.id=//p' "$DIR/node-$id/metadata/meta.properties")
  [[ "$(directory_of "$id")" == "$want" ]] || fail "voter $id's directory id is not its metadata dir's $want: $q"
done
cli topics create orders --partitions 3 --replication-factor 2 >/dev/null || fail "create orders"
produce orders 1 100

echo "== refused changes"
expect_error VOTER_NOT_FOUND --bootstrap-controller "$(cat "$DIR/voters")" quorum remove-voter --id 2 \
  --directory-id "$("$STRATA_BIN_DIR/strata-storage" random-uuid)" --timeout 5
expect_error DUPLICATE_VOTER --bootstrap-controller "$(cat "$DIR/voters")" quorum add-voter --id 1 \
  --directory-id "$(directory_of 1)" --endpoint CONTROLLER://127.0.0.1:1 --timeout 5
expect_error INVALID_REQUEST --bootstrap-controller "$(cat "$DIR/voters")" quorum add-voter --id 7 \
  --directory-id "$("$STRATA_BIN_DIR/strata-storage" random-uuid)" --endpoint OTHER://127.0.0.1:1 --timeout 5
has_voters "[1,2,3]" || fail "a refused change changed the voters: $(voters)"

echo "== add controller 6"
out=$("$CLUSTER" add-controller --dir "$DIR" 6) || fail "add-controller 6: $out"
[[ "$out" == *"directory id"* ]] || fail "add-controller printed '$out'"
cli quorum add-voter --config "$DIR/node-6/server.properties" --timeout 60 >/dev/null || fail "add-voter 6"
has_voters "[1,2,3,6]" || fail "after add-voter 6: $(voters)"
[[ "$(directory_of 6)" == "$(sed -n 's/^directory.id=//p' "$DIR/node-6/metadata/meta.properties")" ]] ||
  fail "voter 6's directory id: $(quorum)"
produce orders 101 200

echo "== a voter restarted on another port updates its endpoint (UpdateRaftVoter)"
L=$(leader)
X=""; for v in 1 2 3; do [[ "$v" != "$L" && -z "$X" ]] && X=$v; done
old_port=$(sed -n 's|^listeners=CONTROLLER://127.0.0.1:||p' "$DIR/node-$X/server.properties")
new_port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$CLUSTER" kill --dir "$DIR" "$X"
sed -i "s|^listeners=CONTROLLER://127.0.0.1:$old_port\$|listeners=CONTROLLER://127.0.0.1:$new_port|" "$DIR/node-$X/server.properties"
sed -i "s|$X@127.0.0.1:$old_port|$X@127.0.0.1:$new_port|" "$DIR/voters"
"$CLUSTER" start --dir "$DIR" "$X"
moved() {
  quorum | jq -e --argjson x "$X" --arg e "CONTROLLER://127.0.0.1:$new_port" '.high_watermark as $hw |
    .voter_states[] | select(.id == $x) | .endpoints == [$e] and .log_end_offset >= $hw and
    (now * 1000 - .last_fetch_timestamp) < 1000'
}
wait_for 30 moved || fail "voter $X did not move to port $new_port: $(quorum)"
has_voters "[1,2,3,6]" || fail "an endpoint update changed the voters: $(voters)"

echo "== remove a follower"
L=$(leader)
F1=""; for v in 1 2 3; do [[ "$v" != "$L" && -z "$F1" ]] && F1=$v; done
cli quorum remove-voter --id "$F1" --directory-id "$(directory_of "$F1")" --timeout 30 >/dev/null ||
  fail "remove-voter $F1"
"$CLUSTER" kill --dir "$DIR" "$F1"
remaining=$(voters)
[[ $(jq length <<<"$remaining") == 3 && $(jq --argjson f "$F1" 'index($f)' <<<"$remaining") == null ]] ||
  fail "after removing $F1: $remaining"

echo "== a removal that would lose the quorum is refused"
L=$(leader)
mapfile -t followers < <(jq -r --argjson l "$L" '.[] | select(. != $l)' <<<"$remaining")
A=${followers[0]}; B=${followers[1]}
"$CLUSTER" kill --dir "$DIR" "$A"
# The leader counts a voter as caught up for an election timeout after it last was; wait
# until A's last catch-up is over a second old, so that the refusal is certain.
stale() {
  quorum | jq -e --argjson a "$A" \
    '.voter_states[] | select(.id == $a) | (now * 1000 - .last_caught_up_timestamp) > 1000'
}
wait_for 30 stale || fail "voter $A still counts as caught up: $(quorum)"
expect_error INVALID_REQUEST --bootstrap-controller "$(cat "$DIR/voters")" quorum remove-voter --id "$B" \
  --directory-id "$(directory_of "$B")" --timeout 5
has_voters "$remaining" || fail "a refused removal changed the voters: $(voters)"
"$CLUSTER" start --dir "$DIR" "$A"
produce orders 201 300

echo "== remove the leader ($L)"
L_DIR=$(directory_of "$L")
# Once A answers the leader again and caught up, removing the leader leaves two voters
# that are both current (the leader keeps A's last index from before the kill: its
# answers are what tell).
caught_up() {
  quorum | jq -e --argjson a "$A" '.high_watermark as $hw | .voter_states[] | select(.id == $a) |
    .log_end_offset >= $hw and (now * 1000 - .last_fetch_timestamp) < 150'
}
wait_for 30 caught_up || fail "voter $A did not catch up: $(quorum)"
cli quorum remove-voter --id "$L" --directory-id "$L_DIR" --timeout 30 >/dev/null || fail "remove-voter $L (leader)"
wait_for 30 led_by_one_of "$A" "$B" || fail "no remaining voter leads: $(quorum)"
"$CLUSTER" kill --dir "$DIR" "$L"
[[ $(voters | jq length) == 2 ]] || fail "after removing the leader: $(voters)"

echo "== the brokers follow the new quorum"
brokers_follow 301 400

echo "== the voters are control records of the metadata log (strata-storage dump)"
# Kafka's layout: KRaftVersion 1 and a KRaftVoters record per configuration (the initial
# voters, +6, -$F1, -$L), the last naming the final voters.
dump=$("$STRATA_BIN_DIR/strata-storage" dump --records "$DIR/node-$A/metadata/__cluster_metadata-0/"*.log)
grep -q "KRaftVersion: 1" <<<"$dump" || fail "no KRaftVersion 1 record in voter $A's log"
last=$(grep -o "KRaftVoters: .*" <<<"$dump" | tail -1)
[[ $(grep -c "KRaftVoters: " <<<"$dump") -ge 4 ]] || fail "voter $A's log holds $(grep -c "KRaftVoters: " <<<"$dump") voter sets"
[[ "$last" == *"voter $A "* && "$last" == *"voter $B "* && "$last" != *"voter $L "* && "$last" != *"voter $F1 "* ]] ||
  fail "the last voters record is not {$A, $B}: $last"

finish "dynamic quorum test"
