# Shared by the strata-cluster process tests (cluster_test.sh, dynamic_quorum_test.sh,
# quorum_upgrade_test.sh):
# sourced after `set -euo pipefail` with STRATA_BIN_DIR and CLUSTER set. Makes DIR (a new
# cluster directory, named after $1), S (the strata CLI), and a trap that stops the
# cluster and removes DIR; fail, wait_for, exited, expect_error and finish; and for the quorum
# tests, the CLI against every controller of DIR/voters (cli), the quorum's JSON and
# parts of it, produce (SERVERS: the cluster's bootstrap servers), brokers_unfenced (of
# two brokers) and brokers_follow.
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-${1:-cluster}-test.XXXXXX")
S="$STRATA_BIN_DIR/strata"
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT

failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }
# wait_for SECONDS COMMAND...: polls until the command succeeds; false at the deadline.
wait_for() {
  local deadline=$(( $(date +%s%N) + $1 * 1000000000 ))
  shift
  until "$@" >/dev/null 2>&1; do
    (( $(date +%s%N) < deadline )) || return 1
    sleep 0.05  # polling a condition with a deadline
  done
}
# exited PID: the process is gone or a zombie (it has exited; init reaps it later).
exited() {
  kill -0 "$1" 2>/dev/null || return 0
  [[ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" == Z ]]
}
# expect_error CODE_NAME ARGS...: the CLI exits 1 and names the Kafka error.
expect_error() {
  local want=$1 rc=0 out
  shift
  out=$("$S" "$@" 2>&1) || rc=$?
  [[ $rc -eq 1 && "$out" == *"$want"* ]] || fail "strata $* gave rc=$rc '$out', expected $want"
}
# finish WHAT: exit 1 naming the count of failed checks (with the end of every node's
# log), else say WHAT passed.
finish() {
  if (( failures > 0 )); then
    echo "$failures failure(s); node logs:" >&2
    for f in "$DIR"/node-*/server.log; do echo "--- $f" >&2; tail -n 15 "$f" >&2; done
    exit 1
  fi
  echo "$1 passed"
}

cli() { "$S" --bootstrap-controller "$(cat "$DIR/voters")" "$@"; }
quorum() { cli quorum describe -o json; }
voters() { quorum | jq -c '.voters'; }
leader() { quorum | jq '.leader_id'; }
directory_of() { quorum | jq -r --argjson id "$1" '.voter_states[] | select(.id == $id) | .directory_id'; }
produce() {  # produce TOPIC FIRST LAST: records "FIRST".."LAST", acks=all, idempotent
  seq "$2" "$3" | kcat -q -P -b "$SERVERS" -t "$1" -X acks=all -X enable.idempotence=true || fail "produce $2..$3"
}
brokers_unfenced() {
  cli cluster describe -o json | jq -e '[.brokers[] | select(.fenced == false)] | length == 2'
}
# brokers_follow FIRST LAST: the brokers serve the quorum as it is now: a topic `after`
# made through it is hosted (records 1..50 produced and read back), and `orders` records
# FIRST..LAST produced now make LAST distinct records in it, each once.
brokers_follow() {
  local got
  cli topics create after --partitions 2 --replication-factor 2 >/dev/null || fail "create after"
  wait_for 30 brokers_unfenced || fail "brokers fenced: $(cli cluster describe -o json)"
  produce orders "$1" "$2"
  produce after 1 50
  got=$(kcat -q -C -b "$SERVERS" -t orders -e -f '%s\n' | sort -n | uniq -c | awk '$1 != 1 {print "dup " $2} END {print NR}')
  [[ "$got" == "$2" ]] || fail "orders read back: $got (want $2 distinct records, each once)"
  got=$(kcat -q -C -b "$SERVERS" -t after -e -f '%s\n' | wc -l)
  [[ "$got" == "50" ]] || fail "after read back: $got records"
}
