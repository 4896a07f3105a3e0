#!/usr/bin/env bash
# What idle partitions cost, with and without incremental fetch sessions (KIP-227): a
# cluster of 3 controllers and 3 brokers (strata-cluster), a topic of IDLE partitions
# (default 3,000, RF 3: every broker follows 2,000 of them) that nobody produces to, and
# a topic of one partition (RF 3) that strata-perf loads with acks=all. For each
# variant, in one run:
#   * idle_cpu_ms_per_s: the brokers' CPU time (user + system, /proc) per second of wall
#     time over WINDOW seconds with nothing produced, summed over the three;
#   * idle_lo_kib_per_s: loopback bytes per second over the same window (the fetches
#     and their answers, and the cluster's own heartbeats);
#   * idle_fetches_per_s: Fetch requests per second the brokers answered;
#   * idle_rss_mib, rss_mib: each broker's resident memory after the idle window and
#     after the load;
#   * produce_records_per_s, p50/p99 ms, cpu_us_per_record: strata-perf produce --acks -1
#     (RECORDS of 1 KiB) to the busy partition beside the idle ones, and the brokers' CPU
#     per record meanwhile.
# Variants (VARIANTS, default "sessions none"): `sessions` is the build as it is;
# `none` the same build with max.incremental.fetch.session.cache.slots=0 (every fetch in
# full, as before KIP-227); `before:<bin dir>` a build without sessions at all.
# Prints one `RESULT fetch_sessions variant=...` line per variant. Usage:
#   fetch_session_bench.sh <bin dir> <strata-cluster>   (env: IDLE, WINDOW, RECORDS, VARIANTS)
set -euo pipefail
BIN=$(cd "${1:?usage: $0 <bin dir> <strata-cluster>}" && pwd)
CLUSTER=$(cd "$(dirname "${2:?usage: $0 <bin dir> <strata-cluster>}")" && pwd)/$(basename "$2")
IDLE=${IDLE:-3000}
WINDOW=${WINDOW:-20}
RECORDS=${RECORDS:-100000}
VARIANTS=${VARIANTS:-"sessions none"}
DIR=$(mktemp -d /tmp/strata-fetch-sessions.XXXXXX)
cleanup() {
  for d in "$DIR"/v*; do [ -d "$d" ] && STRATA_BIN_DIR=$BIN "$CLUSTER" down --dir "$d" >/dev/null 2>&1 || true; done
  rm -rf "$DIR"
}
trap cleanup EXIT INT TERM
now_ms() { date +%s%3N; }
metrics_address() { sed -n 's/^metrics.listener=//p' "$1/server.properties"; }
fetches() {  # Fetch requests answered by the three brokers so far
  local d=$1 total=0 n
  for b in 4 5 6; do
    n=$(curl -s "http://$(metrics_address "$d/node-$b")/metrics" |
      awk '$1 ~ /^strata_kafka_requests_total\{api="Fetch"/ {s += $2} END {printf "%d", s}')
    total=$(( total + n ))
  done
  echo "$total"
}
cpu_ticks() {  # user + system clock ticks of the three brokers
  local d=$1 total=0 t
  for b in 4 5 6; do
    t=$(awk '{printf "%.0f", $14 + $15}' "/proc/$(cat "$d/node-$b/pid")/stat")
    total=$(( total + t ))
  done
  echo "$total"
}
rss_mib() {  # the three brokers' resident memory, MiB each
  local d=$1 out=()
  for b in 4 5 6; do out+=($(awk '/^VmRSS:/ {printf "%.0f", $2 / 1024}' "/proc/$(cat "$d/node-$b/pid")/status")); done
  (IFS=,; echo "${out[*]}")
}
lo_bytes() { awk '$1 == "lo:" {printf "%.0f", $2 + $10}' /proc/net/dev; }
hz=$(getconf CLK_TCK)

i=0
for variant in $VARIANTS; do
  i=$(( i + 1 ))
  d="$DIR/v$i"
  bin=$BIN
  overrides=()
  case "$variant" in
    sessions) ;;
    none) overrides=(--override max.incremental.fetch.session.cache.slots=0) ;;
    before:*) bin=$(cd "${variant#before:}" && pwd) ;;
    *) echo "unknown variant $variant" >&2; exit 2 ;;
  esac
  export STRATA_BIN_DIR=$bin
  "$CLUSTER" up --dir "$d" --controllers 3 --brokers 3 "${overrides[@]}" >/dev/null
  export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$d/cluster.env")
  bootstrap=$(sed -n 's/^bootstrap.servers=//p' "$d/cluster.env")
  left=$IDLE; t=0
  while [ "$left" -gt 0 ]; do
    n=$(( left < 1000 ? left : 1000 ))
    "$bin/strata" topics create "idle-$t" --partitions "$n" --replication-factor 3 >/dev/null
    left=$(( left - n )); t=$(( t + 1 ))
  done
  "$bin/strata" topics create busy --partitions 1 --replication-factor 3 --config min.insync.replicas=2 >/dev/null
  started=$(now_ms)
  until "$bin/strata" topics describe -o json | jq -e --argjson want "$(( IDLE + 1 ))" \
      '[.[] | select(.name | startswith("idle-") or . == "busy") | .partitions[] | select((.isr | length) == 3)]
       | length == $want' >/dev/null 2>&1; do
    if [ $(( $(now_ms) - started )) -gt 600000 ]; then echo "not ready within 600 s" >&2; exit 1; fi
    sleep 0.5  # polling the cluster's state, with the deadline above
  done
  # ... and every broker hosting all of them (its logs open).
  for b in 4 5 6; do
    m=$(metrics_address "$d/node-$b")
    until [ "$(curl -s "http://$m/metrics" | awk '$1 == "strata_partitions" {print $2}')" = "$(( IDLE + 1 ))" ]; do
      if [ $(( $(now_ms) - started )) -gt 600000 ]; then echo "broker $b not ready within 600 s" >&2; exit 1; fi
      sleep 0.2  # polling the broker's gauge, with the deadline above
    done
  done
  # Idle: nothing produced.
  c0=$(cpu_ticks "$d"); l0=$(lo_bytes); f0=$(fetches "$d"); t0=$(now_ms)
  sleep "$WINDOW"  # the measurement window itself, not a synchronisation
  c1=$(cpu_ticks "$d"); l1=$(lo_bytes); f1=$(fetches "$d"); t1=$(now_ms)
  wall_ms=$(( t1 - t0 ))
  idle_cpu=$(awk -v c=$(( c1 - c0 )) -v hz="$hz" -v w="$wall_ms" 'BEGIN {printf "%.1f", c * 1000 / hz / (w / 1000)}')
  idle_lo=$(awk -v b=$(( l1 - l0 )) -v w="$wall_ms" 'BEGIN {printf "%.1f", b / 1024 / (w / 1000)}')
  idle_fetches=$(awk -v f=$(( f1 - f0 )) -v w="$wall_ms" 'BEGIN {printf "%.1f", f / (w / 1000)}')
  idle_rss=$(rss_mib "$d")
  # Busy: one partition under acks=all beside the idle ones.
  c0=$(cpu_ticks "$d")
  perf=$("$bin/strata-perf" produce --bootstrap-server "$bootstrap" --topic busy --num-records "$RECORDS" \
    --record-size 1024 --acks -1 --json | tail -1)
  c1=$(cpu_ticks "$d")
  rate=$(echo "$perf" | jq -r '.records_per_s | floor')
  p50=$(echo "$perf" | jq -r '.request_latency.p50_ms')
  p99=$(echo "$perf" | jq -r '.request_latency.p99_ms')
  cpu_per_record=$(awk -v c=$(( c1 - c0 )) -v hz="$hz" -v n="$RECORDS" 'BEGIN {printf "%.1f", c * 1e6 / hz / n}')
  echo "RESULT fetch_sessions variant=$variant idle_partitions=$IDLE idle_cpu_ms_per_s=$idle_cpu" \
    "idle_lo_kib_per_s=$idle_lo idle_fetches_per_s=$idle_fetches produce_records_per_s=$rate p50_ms=$p50" \
    "p99_ms=$p99 cpu_us_per_record=$cpu_per_record idle_rss_mib=$idle_rss rss_mib=$(rss_mib "$d")"
  "$CLUSTER" down --dir "$d" >/dev/null 2>&1 || true
done
