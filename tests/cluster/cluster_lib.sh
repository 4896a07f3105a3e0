# Shared by the strata-cluster process tests (cluster_test.sh, dynamic_quorum_test.sh,
# quorum_upgrade_test.sh):
# sourced after `set -euo pipefail` with STRATA_BIN_DIR and CLUSTER set. Makes DIR (a new
# cluster directory, named after $1), S (the strata CLI), and a trap that stops the
# cluster and removes DIR; fail, wait_for, expect_error and finish.
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
