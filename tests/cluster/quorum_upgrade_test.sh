#!/usr/bin/env bash
# A static controller quorum (controller.quorum.voters: how every Strata cluster was made
# before KIP-853) upgraded to a dynamic one, with real processes: 3 controllers and 2
# brokers from `strata-cluster up`, driven with the strata CLI while records flow (kcat):
#  * with a voter stopped, `strata features upgrade --feature kraft.version=1` is refused
#    (the leader has no directory id of it) and changes nothing;
#  * with every voter running it succeeds: describe shows kraft.version 1 and each voter
#    keyed by its metadata dir's directory id; `strata features describe` kraft.version 1;
#  * a new controller (add-controller: the static controllers are its bootstrap servers)
#    is added as a voter, and an old one removed and stopped;
#  * every node restarts with its configuration unchanged (the old controllers and the
#    brokers still name controller.quorum.voters): the quorum keeps its voters and a
#    leader, the brokers reach it even when the new controller leads, a topic made then
#    is hosted, and every record produced before, between and after is read back once.
# Waits are conditions polled with deadlines. Every process is stopped at the end.
# Usage: quorum_upgrade_test.sh <dir with strata-server, strata, strata-storage> <strata-cluster>
set -euo pipefail

export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?usage: $0 <bin dir> <strata-cluster>}
source "$(dirname "$0")/cluster_lib.sh" quorum-upgrade
current() {  # current VOTERS_JSON: these voters, led, each holding the log to the high watermark
  quorum | jq -e --argjson v "$1" '(.voters == $v) and .leader_id > 0 and
    (.high_watermark as $hw | all(.voter_states[]; .log_end_offset >= $hw))'
}
kraft_version_feature() { cli features describe -o json | jq -r '.[] | select(.feature == "kraft.version") | .finalized_level'; }

"$CLUSTER" up --dir "$DIR" --controllers 3 --brokers 2 >"$DIR/up.out"
SERVERS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
grep -q '^controller.quorum.voters=' "$DIR/node-1/server.properties" || fail "node 1 is not configured static"
cli topics create orders --partitions 3 --replication-factor 2 >/dev/null || fail "create orders"
produce orders 1 100
[[ $(quorum | jq '.kraft_version') == 0 ]] || fail "a static quorum at kraft.version $(quorum | jq '.kraft_version')"
expect_error UNSUPPORTED_VERSION --bootstrap-controller "$(cat "$DIR/voters")" quorum remove-voter --id 2 \
  --directory-id "$(sed -n 's/^directory.id=//p' "$DIR/node-2/metadata/meta.properties")" --timeout 5

echo "== an upgrade with a voter down is refused"
L=$(leader)
F=""; for v in 1 2 3; do [[ "$v" != "$L" && -z "$F" ]] && F=$v; done
"$CLUSTER" kill --dir "$DIR" "$F"
# The leader knows only the directory ids of voters that answered it since it was
# elected: a new leader without F's answer (a restart of the leader) cannot know F's.
"$CLUSTER" kill --dir "$DIR" "$L"
"$CLUSTER" start --dir "$DIR" "$L"
# A leader that committed an entry of its term (a topic made through it).
wait_for 30 cli topics create probe --partitions 1 --replication-factor 1 || fail "no leader: $(quorum)"
expect_error "directory id is not known" --bootstrap-controller "$(cat "$DIR/voters")" features upgrade \
  --feature kraft.version=1
[[ $(quorum | jq '.kraft_version') == 0 ]] || fail "a refused upgrade changed kraft.version"
"$CLUSTER" start --dir "$DIR" "$F"
produce orders 101 200

echo "== the upgrade"
wait_for 30 current "[1,2,3]" || fail "voters not current: $(quorum)"
cli features upgrade --feature kraft.version=1 >/dev/null || fail "features upgrade kraft.version=1"
q=$(quorum)
[[ $(jq '.kraft_version' <<<"$q") == 1 && $(jq -c '.voters' <<<"$q") == "[1,2,3]" ]] || fail "after the upgrade: $q"
for id in 1 2 3; do
  want=$(sed -n 's/^directory.id=//p' "$DIR/node-$id/metadata/meta.properties")
  [[ "$(directory_of "$id")" == "$want" ]] || fail "voter $id's directory id is not its metadata dir's $want: $q"
done
wait_for 30 test "$(kraft_version_feature)" == 1 || fail "features describe: kraft.version $(kraft_version_feature)"
produce orders 201 300

echo "== a new controller added, an old one removed"
out=$("$CLUSTER" add-controller --dir "$DIR" 6) || fail "add-controller 6: $out"
cli quorum add-voter --config "$DIR/node-6/server.properties" --timeout 60 >/dev/null || fail "add-voter 6"
[[ $(voters) == "[1,2,3,6]" ]] || fail "after add-voter 6: $(voters)"
O=1; [[ $(leader) == 1 ]] && O=2
cli quorum remove-voter --id "$O" --directory-id "$(directory_of "$O")" --timeout 30 >/dev/null || fail "remove-voter $O"
"$CLUSTER" kill --dir "$DIR" "$O"
remaining=$(voters)
[[ $(jq length <<<"$remaining") == 3 && $(jq --argjson o "$O" 'index($o)' <<<"$remaining") == null ]] ||
  fail "after removing $O: $remaining"
produce orders 301 400

echo "== every node restarted with its configuration unchanged"
for id in $(jq '.[]' <<<"$remaining") 4 5; do
  "$CLUSTER" kill --dir "$DIR" "$id"
  "$CLUSTER" start --dir "$DIR" "$id"
done
wait_for 60 current "$remaining" || fail "after the restarts: $(quorum)"
[[ $(quorum | jq '.kraft_version') == 1 ]] || fail "kraft.version after the restarts: $(quorum)"
# The brokers follow the new controller when it leads, although their configuration
# names 1, 2 and 3 only: the leader is killed until 6 leads (each time 6 or the other
# old voter wins the election).
other_leads() { local l; l=$(leader); [[ $l -gt 0 && $l != "$1" ]]; }
for attempt in 1 2 3 4 5 6 7 8 9 10; do
  L=$(leader)
  [[ $L == 6 ]] && break
  "$CLUSTER" kill --dir "$DIR" "$L"
  wait_for 30 other_leads "$L" || fail "no leader after killing $L: $(quorum)"
  "$CLUSTER" start --dir "$DIR" "$L"
  wait_for 60 current "$remaining" || fail "after restarting the leader $L: $(quorum)"
done
[[ $(leader) == 6 ]] || fail "controller 6 never led in 10 elections: $(quorum)"
brokers_follow 401 500

finish "quorum upgrade test"
