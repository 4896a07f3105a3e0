#!/usr/bin/env bash
# Replication figures with real processes (strata-cluster: CONTROLLERS controllers, 3
# brokers), records of 1 KiB (null key):
#   1. throughput: strata-perf produce to a topic of RF 3 with acks=all (-1) and, in the
#      same run on the same cluster, RF 3 with acks=1 and RF 1 with acks=1 (the
#      baseline without replication); strata-perf consume of the RF 3 and RF 1 topics;
#      the latency of one record at a time (one request in flight) for RF 3 acks=all and
#      RF 1 acks=1; dd of the same bytes with conv=fdatasync, before and after (at RF 3
#      the cluster writes those bytes three times, to the same disk here).
#      Topics are used once all brokers list them with their whole ISR, and 1 s later
#      (a follower's first fetch may come before the leader knows the partition; it
#      then waits replica.fetch.backoff.ms, 1000 ms by default).
#   2. failover: time from kill -9 of a partition's leader to the first acks=all
#      acknowledgement from the new leader, RUNS runs per variant (median, min, max),
#      measured by replication_failover.py (python3-confluent-kafka, librdkafka 2.0: one
#      record at a time, the kill between two acknowledgements; details there), on a
#      topic of 3 partitions, RF 3, min.insync.replicas=2 (so every broker fetches from
#      every other one, as on a real cluster), probing partition 0. Each run is broken
#      down from the server logs and a Metadata poller: kill -> fencing committed by the
#      active controller (the session timeout) -> new leader applied on its broker ->
#      new leader visible in Metadata -> the producer moved the partition to it
#      (librdkafka's own log) -> acknowledged (the produce, and the high watermark
#      waiting for the other follower's first fetch from the new leader).
#      Variants (FAILOVER_VARIANTS, default "A B C D E F"):
#        A  strata-cluster's session 3000 ms / heartbeat 300 ms, librdkafka defaults
#        B  the same, client tuned (topic.metadata.refresh.interval.ms=100,
#           topic.metadata.refresh.fast.interval.ms=10, retry.backoff.ms=10,
#           reconnect.backoff.ms=10, reconnect.backoff.max.ms=100)
#        C  session 1000 / heartbeat 100, client tuned
#        D  session 500 / heartbeat 100, client tuned
#        E  D with replica.fetch.backoff.ms=50 (Kafka's default is 1000)
#        F  E with replica.fetch.wait.max.ms=50 too (default 500)
#        G  the server's defaults, session 9000 / heartbeat 2000, client tuned (not run
#           by default: 10 runs take ~2 min)
#      replica.lag.time.max.ms is LAG_MS (default 30000, Kafka's) in every variant; it
#      does not take part in a leader's failover (fencing removes the dead broker from
#      the ISR) and is printed with the settings.
# Prints a table, then the same figures as `RESULT <kind> key=value ...` lines (one per
# figure, stable keys) for scripts. Nothing is asserted beyond every record arriving.
# MB = 2^20 bytes of record values. Wall times include process start and metadata.
# Takes about 4-5 minutes on 2 cores (the failover part ~3.5).
# Usage: replication_bench.sh <bin dir> <strata-cluster>; from the environment:
#   N (records, default 200000), PARTITIONS (3), BATCH_SIZE (16384), LAT_N (records of
#   the one-at-a-time latency rows, 2000), CONTROLLERS (1), RUNS (10), LAG_MS (30000),
#   FAILOVER_VARIANTS ("A B C D E F"), SKIP_THROUGHPUT=1 / SKIP_FAILOVER=1.
# Needs jq, kcat and /usr/bin/python3 with confluent_kafka (scripts/install-deps.sh).
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?usage: $0 <bin dir> <strata-cluster>}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PYTHON=/usr/bin/python3
command -v kcat >/dev/null || { echo "kcat is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
"$PYTHON" -c 'import confluent_kafka' 2>/dev/null ||
  { echo "$PYTHON cannot import confluent_kafka (python3-confluent-kafka; scripts/install-deps.sh)" >&2; exit 1; }
S="$STRATA_BIN_DIR/strata"
PERF="$STRATA_BIN_DIR/strata-perf"
N=${N:-200000}
PARTITIONS=${PARTITIONS:-3}
BATCH_SIZE=${BATCH_SIZE:-16384}
LAT_N=${LAT_N:-2000}
CONTROLLERS=${CONTROLLERS:-1}
RUNS=${RUNS:-10}
LAG_MS=${LAG_MS:-30000}
FAILOVER_VARIANTS=${FAILOVER_VARIANTS:-A B C D E F}
RECORD=1024
BYTES=$((N * RECORD))
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-replication-bench.XXXXXX")
cleanup() {
  for d in "$DIR"/*/; do [[ -f "$d/voters" ]] && "$CLUSTER" down --dir "$d" >/dev/null 2>&1 || true; done
  rm -rf "$DIR"
}
trap cleanup EXIT

now() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.1f", (s > 0 ? b / 1048576 / s : 0) }'; }
ROWS=()
RESULTS=()
# row NAME WALL_SECONDS RECORDS TOOL_RECORDS_PER_S TOOL_MB_PER_S LATENCY
row() {
  ROWS+=("$(printf '%-44s %8s %10s %8s %10s %9s  %s' "$1" "$2" "$(rate "$3" "$2")" "$(mbps $(($3 * RECORD)) "$2")" "$4" "$5" "$6")")
}
result() { RESULTS+=("RESULT $*"); }

# topic_ready TOPIC PARTITIONS RF: every broker lists the topic with all its partitions
# led and an ISR of RF.
topic_ready() {
  local topic=$1 partitions=$2 rf=$3 deadline=$(( $(date +%s) + 30 )) all b
  while (( $(date +%s) < deadline )); do
    all=1
    for b in ${BS//,/ }; do
      kcat -L -b "$b" -t "$topic" -J -m 2 2>/dev/null | jq -e --argjson rf "$rf" --argjson n "$partitions" \
        '.topics[0].partitions | length == $n and all(.leader >= 0 and (.isrs | length) == $rf)' >/dev/null || { all=0; break; }
    done
    (( all )) && return 0
    sleep 0.05  # polling the brokers' metadata
  done
  echo "topic $topic was not ready on every broker within 30 s" >&2
  return 1
}

dd_baseline() {  # $1: label
  local t0 t1
  t0=$(now)
  head -c "$BYTES" /dev/zero | dd of="$DIR/dd.bin" bs=1M iflag=fullblock conv=fdatasync status=none
  t1=$(now)
  rm -f "$DIR/dd.bin"
  row "baseline $1: dd, conv=fdatasync" "$(secs "$t0" "$t1")" "$N" - - -
  result dd "when=$1" "seconds=$(secs "$t0" "$t1")" "mb_per_s=$(mbps "$BYTES" "$(secs "$t0" "$t1")")"
}

# produce ID NAME TOPIC ACKS RECORDS [strata-perf options...]
produce() {
  local id=$1 name=$2 topic=$3 acks=$4 records=$5 t0 t1 out
  shift 5
  t0=$(now)
  out=$("$PERF" produce --bootstrap-server "$BS" --topic "$topic" --num-records "$records" --record-size $RECORD \
    --acks "$acks" --json "$@")
  t1=$(now)
  [[ $(jq .records_acked <<<"$out") == "$records" ]] || { echo "strata-perf produce ($name): $out" >&2; exit 1; }
  row "$name" "$(secs "$t0" "$t1")" "$records" "$(jq '.records_per_s|round' <<<"$out")" "$(jq '.mb_per_s*10|round/10' <<<"$out")" \
    "$(jq -r '.request_latency | "request p50 \(.p50_ms*100|round/100) p99 \(.p99_ms*100|round/100) p999 \(.p999_ms*100|round/100) max \(.max_ms*100|round/100) ms"' <<<"$out")"
  result produce "id=$id" "topic=$topic" "acks=$acks" "records=$records" \
    "$(jq -r '"records_per_s=\(.records_per_s|round) mb_per_s=\(.mb_per_s*10|round/10) p50_ms=\(.request_latency.p50_ms*100|round/100) p99_ms=\(.request_latency.p99_ms*100|round/100) p999_ms=\(.request_latency.p999_ms*100|round/100) max_ms=\(.request_latency.max_ms*100|round/100)"' <<<"$out")"
}

consume() {  # ID NAME TOPIC
  local id=$1 t0 t1 out
  shift
  t0=$(now)
  out=$("$PERF" consume --bootstrap-server "$BS" --topic "$2" --json)
  t1=$(now)
  [[ $(jq .records <<<"$out") == "$N" ]] || { echo "strata-perf consume ($1): $out" >&2; exit 1; }
  row "$1" "$(secs "$t0" "$t1")" "$N" "$(jq '.records_per_s|round' <<<"$out")" "$(jq '.batch_mb_per_s*10|round/10' <<<"$out")b" \
    "$(jq -r '.fetch_latency | "fetch p50 \(.p50_ms*100|round/100) p99 \(.p99_ms*100|round/100) max \(.max_ms*100|round/100) ms"' <<<"$out")"
  result consume "id=$id" "topic=$2" "records=$N" \
    "$(jq -r '"records_per_s=\(.records_per_s|round) batch_mb_per_s=\(.batch_mb_per_s*10|round/10) fetch_p50_ms=\(.fetch_latency.p50_ms*100|round/100) fetch_p99_ms=\(.fetch_latency.p99_ms*100|round/100)"' <<<"$out")"
}

up() {  # DIR [--override k=v]...
  local d=$1
  shift
  "$CLUSTER" up --dir "$d" --controllers "$CONTROLLERS" --brokers 3 "$@" >/dev/null
  BS=$(sed -n 's/^bootstrap.servers=//p' "$d/cluster.env")
  export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$d/cluster.env")
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
result machine "when=start" "cores=$(nproc)" "loadavg=$(cut -d' ' -f1 /proc/loadavg)"

if [[ "${SKIP_THROUGHPUT:-}" != 1 ]]; then
  dd_baseline before
  up "$DIR/throughput" --override "replica.lag.time.max.ms=$LAG_MS"
  "$S" topics create rf1 --partitions "$PARTITIONS" --replication-factor 1 >/dev/null
  "$S" topics create rf3 --partitions "$PARTITIONS" --replication-factor 3 --config min.insync.replicas=2 >/dev/null
  "$S" topics create rf3acks1 --partitions "$PARTITIONS" --replication-factor 3 --config min.insync.replicas=2 >/dev/null
  "$S" topics create lat1 --partitions 1 --replication-factor 1 >/dev/null
  "$S" topics create lat3 --partitions 1 --replication-factor 3 --config min.insync.replicas=2 >/dev/null
  topic_ready rf1 "$PARTITIONS" 1
  topic_ready rf3 "$PARTITIONS" 3
  topic_ready rf3acks1 "$PARTITIONS" 3
  topic_ready lat1 1 1
  topic_ready lat3 1 3
  sleep 1  # past a follower's first fetch backoff (see the top)

  produce rf1_acks1 "produce RF 1 acks=1 (baseline)" rf1 1 "$N" --batch-size "$BATCH_SIZE"
  produce rf3_acksall "produce RF 3 acks=all" rf3 -1 "$N" --batch-size "$BATCH_SIZE"
  produce rf3_acks1 "produce RF 3 acks=1" rf3acks1 1 "$N" --batch-size "$BATCH_SIZE"
  consume rf1 "consume RF 1" rf1
  consume rf3 "consume RF 3" rf3
  produce single_rf1_acks1 "one at a time RF 1 acks=1 (baseline)" lat1 1 "$LAT_N" --batch-size 1 --max-in-flight 1
  produce single_rf3_acksall "one at a time RF 3 acks=all" lat3 -1 "$LAT_N" --batch-size 1 --max-in-flight 1
  "$CLUSTER" down --dir "$DIR/throughput" >/dev/null
  dd_baseline after
fi

FO_ROWS=()
if [[ "${SKIP_FAILOVER:-}" != 1 ]]; then
  for v in $FAILOVER_VARIANTS; do
    fetch_backoff=1000 fetch_wait=500 client=tuned
    case $v in
      A) session=3000 heartbeat=300 client=default ;;
      B) session=3000 heartbeat=300 ;;
      C) session=1000 heartbeat=100 ;;
      D) session=500 heartbeat=100 ;;
      E) session=500 heartbeat=100 fetch_backoff=50 ;;
      F) session=500 heartbeat=100 fetch_backoff=50 fetch_wait=50 ;;
      G) session=9000 heartbeat=2000 ;;
      *) echo "unknown failover variant $v" >&2; exit 2 ;;
    esac
    settings="broker.session.timeout.ms=$session broker.heartbeat.interval.ms=$heartbeat replica.lag.time.max.ms=$LAG_MS replica.fetch.backoff.ms=$fetch_backoff replica.fetch.wait.max.ms=$fetch_wait"
    overrides=()
    for s in $settings; do overrides+=(--override "$s"); done
    d="$DIR/failover-$v"
    up "$d" "${overrides[@]}"
    "$S" topics create failover --partitions 3 --replication-factor 3 --config min.insync.replicas=2 >/dev/null
    topic_ready failover 3 3
    sleep 1
    echo "failover $v: $settings, client $client, $RUNS runs" >&2
    "$PYTHON" "$HERE/replication_failover.py" --bootstrap "$BS" --topic failover --cluster-dir "$d" \
      --cluster "$CLUSTER" --runs "$RUNS" --client "$client" >"$DIR/failover-$v.jsonl" 2>"$DIR/failover-$v.err" || {
      echo "replication_failover.py failed (variant $v):" >&2; grep -v '^%' "$DIR/failover-$v.err" | tail -20 >&2; exit 1; }
    grep -v '^%' "$DIR/failover-$v.err" | sed 's/^/  /' >&2 || true
    "$CLUSTER" down --dir "$d" >/dev/null
    summary=$("$PYTHON" - "$DIR/failover-$v.jsonl" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def col(expr, *fields):  # expr over the runs that have every field
    return [expr(r) for r in runs if all(r.get(f) is not None for f in fields)]
def med(xs):
    return round(statistics.median(xs)) if xs else "-"
def top(xs):
    return round(max(xs)) if xs else "-"
acked = col(lambda r: r["acked_ms"], "acked_ms")
discover = col(lambda r: r["client_moved_ms"] - r["leader_applied_ms"], "client_moved_ms", "leader_applied_ms")
ack_part = col(lambda r: r["acked_ms"] - r["client_moved_ms"], "client_moved_ms")
parts = {
    "acked_median_ms": med(acked), "acked_min_ms": round(min(acked)), "acked_max_ms": top(acked),
    "fenced_median_ms": med(col(lambda r: r["fenced_ms"], "fenced_ms")),
    "leader_applied_after_fence_median_ms":
        med(col(lambda r: r["leader_applied_ms"] - r["fenced_ms"], "leader_applied_ms", "fenced_ms")),
    "metadata_after_leader_applied_median_ms":
        med(col(lambda r: r["metadata_new_leader_ms"] - r["leader_applied_ms"], "metadata_new_leader_ms", "leader_applied_ms")),
    "client_moved_after_leader_applied_median_ms": med(discover),
    "client_moved_after_leader_applied_max_ms": top(discover),
    "acked_after_client_moved_median_ms": med(ack_part), "acked_after_client_moved_max_ms": top(ack_part),
    "acked_after_client_moved_over_250ms": sum(1 for x in ack_part if x > 250),
    "runs": len(runs),
}
print(" ".join("%s=%s" % kv for kv in parts.items()))
PY
)
    result failover "variant=$v" "client=$client" $settings "$summary"
    while read -r line; do result failover_run "variant=$v" "$(jq -r 'to_entries | map("\(.key)=\(.value)") | join(" ")' <<<"$line")"; done <"$DIR/failover-$v.jsonl"
    get() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$summary"; }
    FO_ROWS+=("$(printf '%-2s %7s %5s %6s %5s %-8s %7s %5s %5s  %6s %6s %8s %8s %6s' "$v" "$session" "$heartbeat" \
      "$fetch_backoff" "$fetch_wait" "$client" "$(get acked_median_ms)" "$(get acked_min_ms)" "$(get acked_max_ms)" \
      "$(get fenced_median_ms)" "$(get leader_applied_after_fence_median_ms)" \
      "$(get client_moved_after_leader_applied_median_ms)/$(get client_moved_after_leader_applied_max_ms)" \
      "$(get acked_after_client_moved_median_ms)/$(get acked_after_client_moved_max_ms)" "$(get acked_after_client_moved_over_250ms)")")
  done
fi

echo "machine: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
result machine "when=end" "loadavg=$(cut -d' ' -f1 /proc/loadavg)"
echo
if (( ${#ROWS[@]} )); then
  echo "throughput: N=$N records of $RECORD bytes, $PARTITIONS partitions, 3 brokers, $CONTROLLERS controller(s), batch.size $BATCH_SIZE,"
  echo "up to 5 requests in flight per broker (one at a time rows: $LAT_N records, 1 record per request, 1 in flight, 1 partition)"
  printf '%-44s %8s %10s %8s %10s %9s  %s\n' "run" "wall s" "records/s" "MB/s" "tool rec/s" "tool MB/s" "latency"
  printf '%s\n' "${ROWS[@]}"
  echo "(records/s and MB/s over the wall time, which includes process start; tool figures are strata-perf's own;"
  echo " a trailing b counts record batches as fetched; dd moves the same N x $RECORD bytes once)"
  echo
fi
if (( ${#FO_ROWS[@]} )); then
  echo "failover: kill -9 of the leader of partition 0 (3 partitions, RF 3, min.insync.replicas=2) -> first acks=all ack,"
  echo "$RUNS runs per variant, ms; replica.lag.time.max.ms=$LAG_MS; session/heartbeat: broker.session.timeout.ms /"
  echo "broker.heartbeat.interval.ms; backoff/wait: replica.fetch.backoff.ms / replica.fetch.wait.max.ms"
  printf '%-2s %7s %5s %6s %5s %-8s %7s %5s %5s  %6s %6s %8s %8s %6s\n' "" "session" "hb" "backoff" "wait" "client" \
    "median" "min" "max" "fence" "apply" "discover" "ack" ">250"
  printf '%s\n' "${FO_ROWS[@]}"
  echo "(median/min/max: kill -> first ack; fence: kill -> fencing committed (median); apply: fencing -> new leader applied on"
  echo " its broker (Metadata answers name it within a few ms); discover: applied -> the producer moved the partition,"
  echo " median/max; ack: moved -> acked, median/max (the produce and the high watermark waiting for the other"
  echo " follower's first fetch from the new leader); >250: runs whose ack part exceeded 250 ms)"
  echo
fi
printf '%s\n' "${RESULTS[@]}"
