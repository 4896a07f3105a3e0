#!/usr/bin/env bash
# Startup of a broker holding GIB GiB of logs (default 4), three ways in one run (issue 13):
#   * clean: after SIGTERM (clean-shutdown marker, nothing to recover);
#   * unclean: after SIGKILL, with the recovery-point checkpoint the running broker wrote
#     (rolled segments were flushed in the background): only the unflushed tail is read;
#   * unclean, no recovery point: after SIGKILL with the checkpoint removed, so every
#     segment is recovered — what every unclean restart did before the broker flushed
#     while running.
# Each prints the time from `strata-cluster start` to the broker's "started" line and
# the segments and bytes its load lines say it recovered. 1 controller + 1 broker,
# 4 partitions, 128 MiB segments. Prints figures only.
# Usage: recovery_bench.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
S="$STRATA_BIN_DIR/strata"
PERF="$STRATA_BIN_DIR/strata-perf"
GIB=${GIB:-4}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-recovery-bench.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
LOG="$DIR/node-2/server.log"
LOGS="$DIR/node-2/logs"
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 1 --override log.segment.bytes=134217728 \
  --override log.flush.offset.checkpoint.interval.ms=1000 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
"$S" topics create bench --partitions 4 --replication-factor 1 >/dev/null
records=$((GIB * 1024 * 1024))
t=$(date +%s%N)
"$PERF" produce --bootstrap-server "$BS" --topic bench --num-records $records --record-size 1024 --acks 1 --json \
  --timeout-ms 120000 >"$DIR/produce.json"
echo "figure: produced $GIB GiB ($(jq .records_acked "$DIR/produce.json") records) in $(ms "$t") ms"

# Waits until every partition's checkpointed recovery point is its active segment's base.
checkpointed() {
  for p in 0 1 2 3; do
    local base
    base=$(ls "$LOGS/bench-$p" | sed -n 's/^\([0-9]\{20\}\)\.log$/\1/p' | sort | tail -n 1 | sed 's/^0*//; s/^$/0/')
    grep -qx "bench $p $base" "$LOGS/recovery-point-offset-checkpoint" 2>/dev/null || return 1
  done
}
deadline=$((SECONDS + 60))
until checkpointed; do (( SECONDS < deadline )) || { echo "recovery points not checkpointed" >&2; exit 1; }; sleep 0.1; done

# Starts the broker, waits for its "started" line; prints the figure for $1.
start_and_measure() {
  local what=$1 before
  before=$(wc -l <"$LOG")
  local t=$(date +%s%N)
  "$CLUSTER" start --dir "$DIR" 2
  until tail -n +"$((before + 1))" "$LOG" | grep -q 'broker 2 started'; do sleep 0.01; done
  local took=$(ms "$t")
  local loads
  loads=$(tail -n +"$((before + 1))" "$LOG" | grep 'logs/bench-[0-9]*: loaded')
  local segs bytes
  segs=$(sed -n 's/.*recovered \([0-9]*\) segments.*/\1/p' <<<"$loads" | paste -sd+ | bc)
  bytes=$(sed -n 's/.*recovered [0-9]* segments (\([0-9]*\) bytes).*/\1/p' <<<"$loads" | paste -sd+ | bc)
  echo "RESULT recovery_${what} {\"startup_ms\":$took,\"segments_recovered\":$segs,\"bytes_recovered\":$bytes,\"log_bytes\":$(du -sb "$LOGS" | cut -f1)}"
}
stop_clean() {
  local pid; pid=$(cat "$DIR/node-2/pid")
  kill -TERM "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  rm -f "$DIR/node-2/pid"
}

stop_clean
start_and_measure clean
"$CLUSTER" kill --dir "$DIR" 2
start_and_measure unclean
"$CLUSTER" kill --dir "$DIR" 2
rm -f "$LOGS/recovery-point-offset-checkpoint"
start_and_measure unclean_no_recovery_point
