#!/usr/bin/env bash
# Integration test of the controller and the broker lifecycle with real processes: 3
# controllers and 3 brokers started by strata-cluster, driven with the strata CLI.
#  * a topic with RF 3 and 12 partitions: every broker leads 4 (balanced); wrong
#    requests get their precise Kafka errors and change nothing;
#  * kill -9 of a broker: after the session timeout it is fenced and leads nothing;
#    restarted, it registers again and is unfenced;
#  * every broker follows the metadata into its own image (its /metrics show it) and
#    answers ApiVersions on its Kafka listener;
#  * kill -9 of the active controller: another takes over and every admin command works
#    (a preferred leader election gives every partition its first replica back); back, the
#    killed controller catches up (its image has a topic made while it was down, its
#    commit index reaches the leader's);
#  * SIGTERM of a broker: controlled shutdown moves its leaderships, then it exits;
#  * a broker's log dir fails: its replicas there leave ISRs and leaderships;
#  * a broker's metadata.log.dir is removed: that broker stops itself;
#  * a log dir of a broker is not formatted: that broker refuses to start, naming the fix.
# Waits are conditions polled with deadlines. Every process is stopped at the end.
# Usage: cluster_test.sh <dir with strata-server, strata, strata-storage> <strata-cluster>
set -euo pipefail

export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?usage: $0 <bin dir> <strata-cluster>}
source "$(dirname "$0")/cluster_lib.sh" cluster

"$CLUSTER" up --dir "$DIR" --controllers 3 --brokers 3 --override broker.session.timeout.ms=2000 \
  --override broker.heartbeat.interval.ms=200 >"$DIR/up.out"
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
grep -q '^bootstrap.servers=127.0.0.1:[0-9]*,127.0.0.1:[0-9]*,127.0.0.1:[0-9]*$' "$DIR/up.out" || fail "up printed $(cat "$DIR/up.out")"

leaders() { "$S" topics describe orders -o json | jq -c '[.[0].partitions[].leader]'; }
broker_fenced() { "$S" cluster describe -o json | jq -e --argjson id "$1" --argjson f "$2" '.brokers[] | select(.id == $id) | .fenced == $f'; }

# A balanced topic.
"$S" topics create orders --partitions 12 --replication-factor 3 >/dev/null || fail "create orders"
counts=$("$S" topics describe orders -o json | jq -c '[.[0].partitions[].leader] | group_by(.) | map(length)')
[[ "$counts" == "[4,4,4]" ]] || fail "leaders per broker $counts, expected [4,4,4]"
rf=$("$S" topics describe orders -o json | jq '[.[0].partitions[].replicas | length] | unique')
[[ "$(echo $rf | tr -d ' \n')" == "[3]" ]] || fail "replication factors $rf"

# Every broker follows the metadata into its own image (observer + RocksDB): its
# /metrics show the topic's partitions.
metric() {  # metric NODE NAME: the value of an unlabelled metric on the node's metrics.listener
  local port
  port=$(sed -n 's/^metrics.listener=127.0.0.1://p' "$DIR/node-$1/server.properties")
  python3 -c "import urllib.request,sys; print(urllib.request.urlopen('http://127.0.0.1:$port/metrics', timeout=5).read().decode())" |
    awk -v n="$2" '$1 == n {print $2}'
}
for b in 4 5 6; do
  has12() { [[ "$(metric "$b" strata_metadata_partitions)" == 12 ]]; }
  wait_for 10 has12 || fail "broker $b's image has $(metric "$b" strata_metadata_partitions) partitions, not 12"
done

# Every broker answers the Kafka protocol's ApiVersions on its listener.
for b in 4 5 6; do
  kport=$(sed -n 's|^listeners=PLAINTEXT://127.0.0.1:||p' "$DIR/node-$b/server.properties")
  python3 - "$kport" <<'PY' || fail "broker $b did not answer ApiVersions on port $kport"
import socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
client = b"cluster-test"
body = struct.pack(">hhih", 18, 0, 4242, len(client)) + client  # ApiVersions v0
s.sendall(struct.pack(">i", len(body)) + body)
size = struct.unpack(">i", s.recv(4))[0]
data = b""
while len(data) < size:
    data += s.recv(size - len(data))
correlation, error, count = struct.unpack(">ihi", data[:10])
keys = [struct.unpack(">hhh", data[10 + 6 * i:16 + 6 * i]) for i in range(count)]
# ApiVersions itself is listed from v0, up to v3 at least (flexible, with the features).
assert correlation == 4242 and error == 0 and any(k[:2] == (18, 0) and k[2] >= 3 for k in keys), (
    correlation, error, keys)
PY
done

# Precise errors, nothing changed.
# A static quorum (controller.quorum.voters) refuses voter changes (KIP-853: kraft.version 0).
expect_error UNSUPPORTED_VERSION quorum remove-voter --id 1 --directory-id "$("$STRATA_BIN_DIR/strata-storage" random-uuid)" \
  --timeout 5
[[ $("$S" quorum describe -o json | jq -c '[.kraft_version, .voters]') == "[0,[1,2,3]]" ]] ||
  fail "static quorum: $("$S" quorum describe -o json)"
expect_error INVALID_REPLICATION_FACTOR topics create four --partitions 1 --replication-factor 4
expect_error TOPIC_ALREADY_EXISTS topics create orders --partitions 1 --replication-factor 1
expect_error INVALID_TOPIC_EXCEPTION topics create 'no spaces' --partitions 1 --replication-factor 1
expect_error INVALID_CONFIG topics create cfg --partitions 1 --replication-factor 1 --config retention.ms=soon
expect_error INVALID_CONFIG topics create cfg --partitions 1 --replication-factor 1 --config no.such.key=1
expect_error INVALID_PARTITIONS topics alter orders --partitions 6
expect_error UNKNOWN_TOPIC_OR_PARTITION topics delete nope
topics=$("$S" topics list -o json | jq -c '[.[].name]')
[[ "$topics" == '["orders"]' ]] || fail "topics after refused requests: $topics"

# kill -9 of a broker: fenced after the session timeout; its leaderships move.
victim=$("$S" topics describe orders -o json | jq '.[0].partitions[0].leader')
start=$(date +%s%N)
"$CLUSTER" kill --dir "$DIR" "$victim"
moved() { "$S" topics describe orders -o json | jq -e --argjson b "$victim" '[.[0].partitions[].leader] | index($b) == null'; }
wait_for 20 moved || fail "broker $victim still leads: $(leaders)"
echo "figure: kill -9 of broker $victim -> all its leaderships moved in $(( ($(date +%s%N) - start) / 1000000 )) ms (broker.session.timeout.ms=2000)"
broker_fenced "$victim" true >/dev/null || fail "broker $victim is not shown fenced"
no_leaderless=$("$S" topics describe orders -o json | jq '[.[0].partitions[] | select(.leader < 0)] | length')
[[ "$no_leaderless" == 0 ]] || fail "$no_leaderless partitions lost their leader"
# Restarted, it registers again and is unfenced.
"$CLUSTER" start --dir "$DIR" "$victim"
wait_for 20 broker_fenced "$victim" false || fail "broker $victim was not unfenced after its restart"

# kill -9 of the active controller: every admin command still works.
active=$("$S" quorum describe -o json | jq .leader_id)
"$CLUSTER" kill --dir "$DIR" "$active"
"$S" topics create after --partitions 6 --replication-factor 2 >/dev/null || fail "create after the controller died"
new_active=$("$S" quorum describe -o json | jq .leader_id)
[[ "$new_active" != "$active" && "$new_active" -gt 0 ]] || fail "active controller $new_active after killing $active"
"$S" cluster describe >/dev/null || fail "cluster describe"
"$S" topics alter after --partitions 8 >/dev/null || fail "topics alter"
[[ $("$S" topics describe after -o json | jq '.[0].partitions | length') == 8 ]] || fail "after has not 8 partitions"
"$S" configs alter --topic after --set retention.ms=60000 >/dev/null || fail "configs alter"
[[ $("$S" configs describe --topic after -o json | jq -r '.[] | select(.name == "retention.ms") | .value') == 60000 ]] ||
  fail "retention.ms not set"
# Preferred leader election: once broker $victim is back in every ISR of orders, the
# partitions it was first replica of (led by others since its kill) get it back; every
# partition answers elected (0) or ELECTION_NOT_NEEDED, and then every leader is its
# partition's first replica.
isr_full() { "$S" topics describe orders -o json | jq -e '[.[0].partitions[] | select((.isr | length) != 3)] | length == 0'; }
wait_for 30 isr_full || fail "orders' ISRs are not full before the preferred election: $("$S" topics describe orders)"
rc=0
elected=$("$S" leaders elect --type preferred --topic orders -o json 2>&1) || rc=$?
[[ $rc == 0 ]] || fail "leaders elect exited $rc: $elected"
jq -e 'length == 12 and all(.[]; .error_code == 0 or (.result | startswith("ELECTION_NOT_NEEDED")))' <<<"$elected" >/dev/null 2>&1 ||
  fail "preferred election results are not 12 of elected or ELECTION_NOT_NEEDED: $elected"
jq -e 'any(.[]; .error_code == 0)' <<<"$elected" >/dev/null 2>&1 ||
  fail "the preferred election elected nothing, but broker $victim's partitions were led by others: $elected"
preferred_lead() { "$S" topics describe orders -o json | jq -e 'all(.[0].partitions[]; .leader == .replicas[0])'; }
wait_for 20 preferred_lead || fail "after the preferred election not every leader is its first replica: $("$S" topics describe orders -o json | jq -c '[.[0].partitions[] | [.leader, .replicas]]')"
"$S" topics delete after >/dev/null || fail "topics delete"
[[ $("$S" topics list -o json | jq -c '[.[].name]') == '["orders"]' ]] || fail "after was not deleted"
# State made while the controller is down: its image must have it once it is back.
"$S" topics create while-down --partitions 1 --replication-factor 3 >/dev/null || fail "create while-down"
# The killed controller comes back and catches up: its own image (a follower answers
# reads from it) holds the topic created while it was down, and its commit index reaches
# the one the leader had just before it came back.
controller_addr() { echo "127.0.0.1:$(sed -n "s/.*$1@127.0.0.1:\([0-9]*\).*/\1/p" "$DIR/voters")"; }
leader_commit=$("$S" --bootstrap-controller "$(controller_addr "$new_active")" quorum describe -o json | jq .high_watermark)
"$CLUSTER" start --dir "$DIR" "$active"
node_caught_up() {
  "$S" --bootstrap-controller "$(controller_addr "$active")" topics list -o json | jq -e 'map(.name) | sort == ["orders", "while-down"]' &&
    "$S" --bootstrap-controller "$(controller_addr "$active")" quorum describe --local -o json | jq -e --argjson c "$leader_commit" '.high_watermark >= $c'
}
wait_for 20 node_caught_up || fail "controller $active did not catch up: it lists $("$S" --bootstrap-controller "$(controller_addr "$active")" topics list -o json 2>&1 | jq -c 'map(.name)' 2>&1), commit index $("$S" --bootstrap-controller "$(controller_addr "$active")" quorum describe --local -o json 2>&1 | jq .high_watermark 2>&1), the leader's $leader_commit"

# SIGTERM of a broker: a controlled shutdown moves its leaderships away before it exits 0.
wait_for 20 broker_fenced 6 false || fail "broker 6 is not unfenced"
led_by_6=$("$S" topics describe orders -o json | jq '[.[0].partitions[] | select(.leader == 6)] | length')
[[ "$led_by_6" -gt 0 ]] || fail "broker 6 leads nothing before its shutdown"
pid6=$(cat "$DIR/node-6/pid")
kill -TERM "$pid6"
wait_for 30 exited "$pid6" || fail "broker 6 did not stop on SIGTERM"
grep -q "controlled shutdown done" "$DIR/node-6/server.log" || fail "broker 6 did not finish its controlled shutdown"
after6=$("$S" topics describe orders -o json | jq '[.[0].partitions[] | select(.leader == 6)] | length')
[[ "$after6" == 0 ]] || fail "broker 6 still leads $after6 partitions after its controlled shutdown"
broker_fenced 6 true >/dev/null || fail "broker 6 is not fenced after its controlled shutdown"
"$CLUSTER" start --dir "$DIR" 6

# A broker's only log dir fails (removed from under it): the broker takes it offline
# and reports it at once; its replicas there leave the ISRs and their leaderships move
# to healthy ISR members; with no log dir left, the broker then stops (exit code 71), with
# one ERROR line naming the dir. (A fresh topic: every replica starts in sync.)
for b in 4 5 6; do wait_for 20 broker_fenced "$b" false || fail "broker $b is not unfenced"; done
out=$("$S" topics create dirs --partitions 6 --replication-factor 3 2>&1) || fail "create dirs: $out"
led_by_5=$("$S" topics describe dirs -o json | jq '[.[0].partitions[] | select(.leader == 5)] | length')
[[ "$led_by_5" == 2 ]] || fail "broker 5 leads $led_by_5 partitions of dirs, not 2"
# The broker writes there meanwhile (checkpoints, partition dirs): retry until it is gone.
for _ in $(seq 50); do rm -rf "$DIR/node-5/logs" 2>/dev/null && break; done
[[ ! -e "$DIR/node-5/logs" ]] || { echo "FAILED: could not remove node-5/logs" >&2; exit 1; }
dir_offline() { "$S" cluster describe -o json | jq -e '.brokers[] | select(.id == 5) | .offline_log_dirs == 1'; }
wait_for 20 dir_offline || fail "broker 5's log dir is not shown offline"
moved_off_5() { "$S" topics describe dirs -o json | jq -e '[.[0].partitions[] | select(.leader == 5 or (.isr | index(5) != null))] | length == 0'; }
wait_for 20 moved_off_5 || fail "broker 5 still leads or is in an ISR: $("$S" topics describe dirs)"
leaderless=$("$S" topics describe dirs -o json | jq '[.[0].partitions[] | select(.leader < 0)] | length')
[[ "$leaderless" == 0 ]] || fail "$leaderless partitions of dirs lost their leader"
pid5=$(cat "$DIR/node-5/pid")
wait_for 20 exited "$pid5" || fail "broker 5 kept running with every log dir failed"
grep -q "broker 5: every log dir has failed ($DIR/node-5/logs); nothing it holds can be served: stopping$" \
  "$DIR/node-5/server.log" || fail "broker 5 did not say it stopped for its failed log dirs"
offline5=$("$S" topics describe dirs -o json | jq '[.[0].partitions[] | select(.offline_replicas | index(5) != null)] | length')
[[ "$offline5" == 6 ]] || fail "$offline5 partitions of dirs show broker 5's replica offline, not 6"

# A broker whose metadata.log.dir is removed from under it stops itself.
pid6=$(cat "$DIR/node-6/pid")
for _ in $(seq 50); do rm -rf "$DIR/node-6/metadata" 2>/dev/null && break; done
wait_for 20 exited "$pid6" || fail "broker 6 kept running without its metadata.log.dir"
grep -q "metadata.log.dir .* failed, stopping" "$DIR/node-6/server.log" || fail "broker 6 did not say why it stopped"

# A broker whose log dir is not formatted refuses to start, naming the fix (broker 4:
# the one still running).
"$CLUSTER" kill --dir "$DIR" 4
rm "$DIR/node-4/logs/meta.properties"
"$CLUSTER" start --dir "$DIR" 4
wait_for 20 exited "$(cat "$DIR/node-4/pid")" || fail "broker 4 started on an unformatted log dir"
grep -q "strata-storage format" "$DIR/node-4/server.log" || fail "no hint to run strata-storage format"

finish "cluster test"
