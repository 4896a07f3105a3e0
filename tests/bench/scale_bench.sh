#!/usr/bin/env bash
# Scale figures with real processes (strata-cluster: 3 controllers, 3 brokers), for each
# total of partitions in COUNTS (default "100 1000 10000"), all RF 3 (so every broker holds
# every partition), in topics of at most 1,000 partitions:
#   * create_ms: the time of each `strata topics create` of a topic of up to 1,000
#     partitions (median and max over the topics; the CLI returns once the controller
#     committed the records);
#   * ready_s: from the first create to every partition's ISR full (`strata topics
#     describe`) and every broker hosting all of them (strata_partitions on its /metrics);
#   * per broker, with every partition ready, nothing produced and SETTLE seconds (30)
#     later: VmRSS, RssAnon (its anonymous memory: VmRSS less the mapped files, the
#     indexes), the allocator's live bytes (strata_memory_allocated_bytes) and open file
#     descriptors (medians of the three brokers), and their growth per partition against
#     the smallest count of the run (*_per_partition); ratio_rss_anon: RssAnon per
#     partition at the largest count over the second smallest (1.0: a partition costs
#     the same at both sizes; memory growing with the square of the partitions, as
#     before issue 33, gave 2-5);
#   * apply_ms: the cost of one metadata change on a broker. PROBES config changes of a
#     topic of 1 partition, one after another; strata_metadata_image_apply_seconds_total over
#     strata_metadata_image_applies_total on each broker's /metrics (the delta over the
#     probes; the median of the three brokers);
#   * controller_failover_ms: kill -9 of the active controller to the first CreateTopics
#     answered by the new one (one run).
# A broker keeps one file descriptor per segment (its .log; indexes are closed once
# mapped), so 10,000 partitions fit under this machine's 20,000 open files per process.
# Prints `RESULT scale key=value ...` lines, one per count, then `RESULT scale_memory
# ratio_rss_anon=...`. MEMORY_ONLY=1 leaves out the apply probes and the failover.
# Then, unless QUORUM=0, scale_quorum_bench.sh: QUORUM partitions (100,000) in the
# metadata quorum, more than the brokers here can host (`RESULT scale_quorum ...`).
# The clusters' directories are made under SCALE_DIR (/tmp). On this machine's disk, ext4
# without a journal, creating a file scans past every inode freed in the last 30 s
# (dirty_expire_centisecs), so hosting right after another run's clean-up is several times
# slower; SCALE_DIR=/dev/shm measures the broker without its file system
# (docs/performance.md, issue 33).
# Usage:
#   scale_bench.sh <bin dir> <strata-cluster>   (env: COUNTS, PROBES (10), SETTLE (30), MEMORY_ONLY, QUORUM, SCALE_DIR)
set -euo pipefail
export STRATA_BIN_DIR=$(cd "${1:?usage: $0 <bin dir> <strata-cluster>}" && pwd)
CLUSTER=$(cd "$(dirname "${2:?usage: $0 <bin dir> <strata-cluster>}")" && pwd)/$(basename "$2")
S="$STRATA_BIN_DIR/strata"
COUNTS=${COUNTS:-"100 2000 10000"}
PROBES=${PROBES:-10}
SETTLE=${SETTLE:-30}
MEMORY_ONLY=${MEMORY_ONLY:-0}
DIR=$(mktemp -d "${SCALE_DIR:-/tmp}/strata-scale.XXXXXX")
cleanup() {
  for d in "$DIR"/c*; do [ -d "$d" ] && "$CLUSTER" down --dir "$d" >/dev/null 2>&1 || true; done
  rm -rf "$DIR"
}
trap cleanup EXIT INT TERM
source "$(dirname "$0")/scale_lib.sh"

base_count=""; declare -A base per_part_anon
for count in $COUNTS; do
  d="$DIR/c$count"
  "$CLUSTER" up --dir "$d" --controllers 3 --brokers 3 >/dev/null
  export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$d/cluster.env")
  creates=()
  started=$(now_ms)
  left=$count; i=0
  while [ "$left" -gt 0 ]; do
    n=$(( left < 1000 ? left : 1000 ))
    t0=$(now_ms)
    "$S" topics create "scale-$i" --partitions "$n" --replication-factor 3 >/dev/null
    creates+=($(( $(now_ms) - t0 )))
    left=$(( left - n )); i=$(( i + 1 ))
  done
  topics=$i
  # Ready: every partition of every topic with its whole ISR.
  until "$S" topics describe -o json | jq -e --argjson want "$count" \
      '[.[] | select(.name | startswith("scale-")) | .partitions[] | select((.isr | length) == 3)] | length == $want' \
      >/dev/null 2>&1; do
    if [ $(( $(now_ms) - started )) -gt 600000 ]; then echo "not ready within 600 s" >&2; exit 1; fi
    sleep 0.5  # polling the cluster's state, with the deadline above
  done
  # ... and every broker hosting all of them (its logs open).
  for b in 4 5 6; do
    m=$(metrics_address "$d/node-$b")
    until [ "$(metric "$m" strata_partitions)" = "$count" ]; do
      if [ $(( $(now_ms) - started )) -gt 600000 ]; then echo "broker $b not ready within 600 s" >&2; exit 1; fi
      sleep 0.2  # polling the broker's gauge, with the deadline above
    done
  done
  ready_ms=$(( $(now_ms) - started ))
  # Memory once the hosting's bursts are over (glibc's free pages go back within
  # memory.release.interval.ms, 5 s; jemalloc's within 10 s), as an operator sizing a
  # cluster would read it.
  sleep "$SETTLE"  # a fixed settling time before sampling, not synchronisation
  declare -A med
  for k in rss anon alloc fds; do
    vals=()
    for b in 4 5 6; do
      pid=$(cat "$d/node-$b/pid")
      case $k in
        rss) vals+=($(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")) ;;
        anon) vals+=($(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status")) ;;
        alloc) vals+=($(curl -s "http://$(metrics_address "$d/node-$b")/metrics" |
                        awk '$1 ~ /^strata_memory_allocated_bytes/ {printf "%d", $2 / 1024}')) ;;
        fds) vals+=($(ls "/proc/$pid/fd" | wc -l)) ;;
      esac
    done
    med[$k]=$(printf '%s\n' "${vals[@]}" | median)
  done
  if [ -z "$base_count" ]; then
    for k in rss anon alloc fds; do base[$k]=${med[$k]}; done
    base_count=$count
  fi
  growth() {  # growth <key> <decimals>: growth per partition against the smallest count
    awk -v v="${med[$1]}" -v v0="${base[$1]}" -v c="$count" -v c0="$base_count" -v d="$2" \
      'BEGIN {if (c > c0 && v != "" && v0 != "") printf "%.*f", d, (v - v0) / (c - c0); else print "base"}'
  }
  per_part_anon[$count]=$(growth anon 2)
  memory="rss_kib_median=${med[rss]} rss_kib_per_partition=$(growth rss 2) rss_anon_kib_median=${med[anon]}"
  memory+=" rss_anon_kib_per_partition=$(growth anon 2) allocated_kib_median=${med[alloc]}"
  memory+=" allocated_kib_per_partition=$(growth alloc 2) fds_median=${med[fds]} fds_per_partition=$(growth fds 2)"
  probes=""
  if [ "$MEMORY_ONLY" != 1 ]; then
    # The cost of a metadata change: PROBES config changes of a one-partition topic, one
    # after another (each a Config record: every broker applies the image again).
    "$S" topics create probe --partitions 1 --replication-factor 3 >/dev/null
    apply_brokers=$(apply_cost "$d" probe "$PROBES" 4 5 6)
    apply_ms=$(tr , '\n' <<<"$apply_brokers" | median)
    # Controller failover: kill -9 the active one, time the first CreateTopics it answers.
    active=$("$S" cluster describe -o json | jq -r .controller_id)
    t0=$(now_ms)
    "$CLUSTER" kill --dir "$d" "$active" >/dev/null
    until "$S" topics create failover-probe --partitions 1 --replication-factor 3 >/dev/null 2>&1; do
      if [ $(( $(now_ms) - t0 )) -gt 60000 ]; then echo "no controller within 60 s" >&2; exit 1; fi
    done
    failover_ms=$(( $(now_ms) - t0 ))
    probes=" apply_ms_median=$apply_ms apply_ms_brokers=$apply_brokers controller_failover_ms=$failover_ms"
  fi
  create_med=$(printf '%s\n' "${creates[@]}" | median); create_max=$(printf '%s\n' "${creates[@]}" | sort -n | tail -1)
  echo "RESULT scale partitions=$count topics=$topics create_ms_median=$create_med create_ms_max=$create_max" \
       "ready_s=$(awk -v m="$ready_ms" 'BEGIN {printf "%.1f", m / 1000}') $memory$probes"
  "$CLUSTER" down --dir "$d" >/dev/null 2>&1 || true
  rm -rf "$d"
done
# Goal 1 of issue 33: a partition costs the same at every size.
counts=($COUNTS)
if [ ${#counts[@]} -ge 3 ]; then
  small=${counts[1]}; large=${counts[${#counts[@]}-1]}
  echo "RESULT scale_memory small=$small large=$large rss_anon_kib_per_partition_small=${per_part_anon[$small]}" \
       "rss_anon_kib_per_partition_large=${per_part_anon[$large]} ratio_rss_anon=$(awk -v a="${per_part_anon[$small]}" \
       -v b="${per_part_anon[$large]}" 'BEGIN {printf "%.3f", b / a}')"
fi
if [ "${QUORUM:-100000}" != 0 ]; then
  QUORUM=${QUORUM:-100000} PROBES=$PROBES bash "$(dirname "$0")/scale_quorum_bench.sh" "$STRATA_BIN_DIR" "$CLUSTER"
fi
