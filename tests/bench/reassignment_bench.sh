#!/usr/bin/env bash
# Reassignment figures with real processes (1 controller + 4 brokers, strata-cluster), all
# in one run on the same disk:
#   * baseline: dd writing SIZE_MB MiB to the cluster's directory (conv=fdatasync), the
#     disk's sequential write rate, and the raw copy a reassignment cannot beat;
#   * a partition holding SIZE_MB MiB (RF 1, on broker 2) moved to broker 3
#     (`strata partitions reassign execute`, then `verify` until completed): MiB/s from
#     execute to completed, and that against dd;
#   * the same partition moved on (broker 4 -> 2) with --throttle THROTTLE_MB MiB/s: MiB/s
#     against the throttle (a throttle lets the first (samples - 1) windows' worth through
#     at once, as Kafka's: 10 s of it);
#   * produce request latency (p50, p99) on a partition that does not move (topic
#     `steady`, RF 3 on brokers 2-4, acks=all, a fixed record rate), measured alone and
#     then while the partition moves from broker 3 to broker 4.
# Prints figures only. Usage: reassignment_bench.sh <bin dir> <strata-cluster> [SIZE_MB]
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster> [SIZE_MB]}
CLUSTER=${2:?}
SIZE_MB=${3:-512}
THROTTLE_MB=${THROTTLE_MB:-10}
S="$STRATA_BIN_DIR/strata"
PERF="$STRATA_BIN_DIR/strata-perf"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-reassignment-bench.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 4 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

t=$(date +%s%N)
dd if=/dev/zero of="$DIR/dd.bin" bs=1M count="$SIZE_MB" conv=fdatasync status=none
dd_ms=$(ms "$t")
rm -f "$DIR/dd.bin"
echo "figure: dd baseline: $SIZE_MB MiB written in $dd_ms ms: $(( SIZE_MB * 1000 / dd_ms )) MiB/s"

"$S" topics create moving --replica-assignment 2 > /dev/null
"$S" topics create steady --replica-assignment 2:3:4 --config min.insync.replicas=2 > /dev/null
"$PERF" produce --bootstrap-server "$BS" --topic moving --num-records $(( SIZE_MB * 1024 )) --record-size 1024 \
  --acks 1 > /dev/null

# Moves moving-0 to $1 (further arguments: to execute); prints the milliseconds until
# verify says completed.
move() {
  echo "{\"version\":1,\"partitions\":[{\"topic\":\"moving\",\"partition\":0,\"replicas\":[$1]}]}" > "$DIR/plan.json"
  local start
  start=$(date +%s%N)
  "$S" partitions reassign execute --plan "$DIR/plan.json" "${@:2}" > /dev/null 2>&1
  until "$S" partitions reassign verify --plan "$DIR/plan.json" > /dev/null 2>&1; do
    sleep 0.05  # polling for completion
  done
  ms "$start"
}
# Produce latency on steady for $1 seconds at 2,000 records/s: "p50 p99" in ms.
latency() {
  "$PERF" produce --bootstrap-server "$BS" --topic steady --num-records $(( $1 * 2000 )) --throughput 2000 \
    --record-size 512 --acks -1 --json | jq -r '"\(.request_latency.p50_ms) \(.request_latency.p99_ms)"'
}

read -r p50 p99 <<<"$(latency 10)"
echo "figure: produce latency of steady-0 (acks=all, 2000 records/s), nothing moving: p50 $p50 ms, p99 $p99 ms"
move_ms=$(move 3)
echo "figure: reassignment of $SIZE_MB MiB (broker 2 -> 3, no throttle): $move_ms ms:" \
  "$(( SIZE_MB * 1000 / move_ms )) MiB/s ($(( dd_ms * 100 / move_ms ))% of dd)"
latency 10 > "$DIR/latency" &
sleep 1  # the latency run under way before the move starts
move_ms=$(move 4)
wait
read -r p50 p99 < "$DIR/latency"
echo "figure: reassignment of $SIZE_MB MiB (broker 3 -> 4) under the latency run: $move_ms ms"
echo "figure: produce latency of steady-0 while moving-0 moved: p50 $p50 ms, p99 $p99 ms"
move_ms=$(move 2 --throttle $(( THROTTLE_MB * 1024 * 1024 )))
echo "figure: reassignment of $SIZE_MB MiB (broker 4 -> 2) throttled at $THROTTLE_MB MiB/s: $move_ms ms:" \
  "$(( SIZE_MB * 1000 / move_ms )) MiB/s"
