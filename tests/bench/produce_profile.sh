#!/usr/bin/env bash
# The cost of an acks=all produce request on a 3-node combined cluster (as
# ../shared/bench/sidebyside.sh makes it; topic bench1, 1 partition, RF 3,
# min.insync.replicas=2): one `strata-perf produce --acks -1` run of N records (1 KiB, 16 KiB
# batches, 5 in flight) under `perf stat -e context-switches -a`, then the figures:
# records/s and request latency, each node's CPU time, context switches per request.
# Compare builds by running it on each, alternately (the machine is shared and noisy).
# Usage: produce_profile.sh <checkout with build/tools> [N (400000)]. Needs perf and jq.
set -euo pipefail
ROOT=$(cd "${1:?usage: $0 <checkout with build/tools> [N]}" && pwd); N=${2:-400000}
export STRATA_BIN_DIR=$ROOT/build/tools
D=$(mktemp -d /tmp/strata-produce-profile.XXXXXX)
trap '"$ROOT/tools/strata-cluster" down --dir "$D" >/dev/null 2>&1 || true; rm -rf "$D"' EXIT INT TERM
"$ROOT/tools/strata-cluster" up --dir "$D/cluster" --combined 3 >/dev/null
B=$(sed -n 's/^bootstrap.servers=//p' "$D/cluster/cluster.env")
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$D/cluster/cluster.env")
"$STRATA_BIN_DIR/strata" topics create bench1 --partitions 1 --replication-factor 3 --config min.insync.replicas=2 >/dev/null
"$STRATA_BIN_DIR/strata" topics describe bench1 -o json >/dev/null
sleep 2  # past a follower's first fetch backoff, as sidebyside.sh
pids=(); for n in 1 2 3; do pids+=("$(cat "$D/cluster/node-$n/pid")"); done
ticks() { for p in "${pids[@]}"; do awk '{print $14 + $15}' "/proc/$p/stat"; done | tr '\n' ' '; }
before=($(ticks))
out=$(perf stat -e context-switches -a -o "$D/stat.txt" -- "$STRATA_BIN_DIR/strata-perf" produce --bootstrap-server "$B" \
  --topic bench1 --num-records "$N" --record-size 1024 --acks -1 --json 2>&1 | tail -1)
after=($(ticks))
requests=$(echo "$out" | jq .requests)
switches=$(awk '/context-switches/ {gsub(",", "", $1); print $1}' "$D/stat.txt")
hz=$(getconf CLK_TCK)
cpu=""; for i in 0 1 2; do cpu+="$(awk -v a="${before[$i]}" -v b="${after[$i]}" -v hz="$hz" -v r="$requests" \
  'BEGIN {printf "%.0f", (b - a) * 1e6 / hz / r}'),"; done
echo "RESULT produce_profile $(echo "$out" | jq -c '{records_per_s, requests, latency: .request_latency}')" \
     "cpu_us_per_request_nodes=${cpu%,} context_switches_per_request=$(awk -v s="$switches" -v r="$requests" 'BEGIN {printf "%.1f", s / r}')"
