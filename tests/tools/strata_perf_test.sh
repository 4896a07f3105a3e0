#!/usr/bin/env bash
# Integration test of strata-perf (tools/perf) against real processes: a 1-controller
# 1-broker cluster (strata-cluster), a topic of 3 partitions with RF 1; `produce` of
# 20,000 records must be acknowledged without an error, `consume` must read back
# exactly as many with valid batches, an unknown topic is a usage error (exit 2). The
# figures are printed, never asserted. Usage: strata_perf_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
S="$STRATA_BIN_DIR/strata"
PERF="$STRATA_BIN_DIR/strata-perf"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-perf-test.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 1 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
"$S" topics create perf --partitions 3 --replication-factor 1 >/dev/null

N=20000
produced=$(timeout 120 "$PERF" produce --bootstrap-server "$BS" --topic perf --num-records $N --record-size 1024 \
  --acks 1 --json) || fail "produce exited $?"
echo "produce: $produced"
[[ $(jq '.records_acked' <<<"$produced") == "$N" ]] || fail "produce acknowledged $(jq .records_acked <<<"$produced") of $N"
[[ $(jq '.partition_errors + (.failures | length)' <<<"$produced") == 0 ]] || fail "produce errors: $(jq -c '.errors + .failures' <<<"$produced")"

consumed=$(timeout 120 "$PERF" consume --bootstrap-server "$BS" --topic perf --json) || fail "consume exited $?"
echo "consume: $consumed"
[[ $(jq '.records' <<<"$consumed") == "$N" ]] || fail "consumed $(jq .records <<<"$consumed") records, produced $N"
[[ $(jq '.records_available' <<<"$consumed") == "$N" ]] || fail "the end offsets hold $(jq .records_available <<<"$consumed") records"
[[ $(jq '.failures | length' <<<"$consumed") == 0 ]] || fail "consume failures: $(jq -c .failures <<<"$consumed")"

# acks=-1 (the ISR is the leader alone with RF 1) on one partition, then the human output.
timeout 120 "$PERF" produce --bootstrap-server "$BS" --topic perf --num-records 3000 --acks -1 --partitions 1 \
  || fail "produce --acks -1 exited $?"
again=$(timeout 120 "$PERF" consume --bootstrap-server "$BS" --topic perf --json) || fail "second consume exited $?"
[[ $(jq '.records' <<<"$again") == $((N + 3000)) ]] || fail "second consume read $(jq .records <<<"$again"), want $((N + 3000))"

set +e
"$PERF" produce --bootstrap-server "$BS" --topic no-such-topic --num-records 1 2>/dev/null
code=$?
set -e
[[ $code == 2 ]] || fail "an unknown topic exited $code, want 2"

if (( failures > 0 )); then exit 1; fi
echo "strata-perf test passed"
