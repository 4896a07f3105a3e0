#!/usr/bin/env bash
# An unclean restart reads only what lies above the recovery point (issue 13): a broker
# with 1 MiB segments takes ~8 MiB into one partition, so that rolls flush every segment
# but the active one in the background; once the recovery-point checkpoint names the
# active segment, the broker is killed with SIGKILL and restarted. Its load line must say
# it recovered that one segment, and exactly the bytes the active segment held, and every
# record must still be there. Usage: unclean_restart_recovery_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
S="$STRATA_BIN_DIR/strata"
PERF="$STRATA_BIN_DIR/strata-perf"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-unclean-restart-test.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
fail() {
  echo "FAILED: $*" >&2
  tail -n 20 "$DIR/node-2/server.log" >&2 || true
  exit 1
}
# Polls a shell condition every 100 ms until it holds or the deadline (seconds) passes.
wait_for() {
  local what=$1 seconds=$2 condition=$3 deadline=$((SECONDS + $2))
  until eval "$condition"; do
    (( SECONDS < deadline )) || fail "not within $seconds s: $what"
    sleep 0.1
  done
}

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 1 --override log.segment.bytes=1048576 \
  --override log.flush.offset.checkpoint.interval.ms=100 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
"$S" topics create recovery --partitions 1 --replication-factor 1 >/dev/null

N=8000
produced=$(timeout 120 "$PERF" produce --bootstrap-server "$BS" --topic recovery --num-records $N --record-size 1024 \
  --acks 1 --json) || fail "produce exited $?"
[[ $(jq '.records_acked' <<<"$produced") == "$N" ]] || fail "produce acknowledged $(jq .records_acked <<<"$produced") of $N"

PART="$DIR/node-2/logs/recovery-0"
CHECKPOINT="$DIR/node-2/logs/recovery-point-offset-checkpoint"
active_base() { ls "$PART" | sed -n 's/^\([0-9]\{20\}\)\.log$/\1/p' | sort | tail -n 1 | sed 's/^0*//; s/^$/0/'; }
segments=$(ls "$PART" | grep -c '^[0-9]\{20\}\.log$')
(( segments >= 5 )) || fail "only $segments segments were written; the test needs several"
base=$(active_base)
wait_for "the recovery-point checkpoint to reach the active segment (offset $base)" 30 \
  "grep -qx 'recovery 0 $base' '$CHECKPOINT' 2>/dev/null"
active_bytes=$(stat -c %s "$PART/$(printf '%020d' "$base").log")
total_bytes=$(cat "$PART"/*.log | wc -c)

lines_before=$(wc -l < "$DIR/node-2/server.log")
"$CLUSTER" kill --dir "$DIR" 2
"$CLUSTER" start --dir "$DIR" 2
loaded() { tail -n +"$((lines_before + 1))" "$DIR/node-2/server.log" | grep -m1 'logs/recovery-0: loaded' || true; }
wait_for "the restarted broker to load recovery-0" 60 '[[ -n "$(loaded)" ]]'
line=$(loaded)
echo "after kill -9: $line"
[[ "$line" =~ loaded\ ([0-9]+)\ segments.*recovered\ ([0-9]+)\ segments\ \(([0-9]+)\ bytes\) ]] \
  || fail "the load line does not parse: $line"
(( BASH_REMATCH[1] == segments )) || fail "loaded ${BASH_REMATCH[1]} segments, the dir had $segments"
(( BASH_REMATCH[2] == 1 )) || fail "recovered ${BASH_REMATCH[2]} segments, want only the active one"
(( BASH_REMATCH[3] == active_bytes )) \
  || fail "recovered ${BASH_REMATCH[3]} bytes, want the active segment's $active_bytes (of $total_bytes in all)"

wait_for "the broker to serve again" 60 \
  "timeout 20 '$PERF' consume --bootstrap-server '$BS' --topic recovery --json > '$DIR/consumed.json' 2>/dev/null"
[[ $(jq '.records' "$DIR/consumed.json") == "$N" ]] || fail "consumed $(jq .records "$DIR/consumed.json") records after the restart, want $N"
echo "unclean restart recovery test passed: recovered ${BASH_REMATCH[3]} of $total_bytes bytes"
