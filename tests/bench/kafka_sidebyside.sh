#!/usr/bin/env bash
# Apache Kafka side by side: a 3-node Apache Kafka 4.x cluster in KRaft combined mode
# (kafka_cluster.sh, the jars of scripts/install-peers.sh) and then a 3-node Strata
# cluster (strata-cluster --combined 3), one after the other on the same loopback, each
# with its data in a temp dir, driven by the same client: Kafka's own tools and the Java
# client 4.4.0. Workloads (topics at RF 3, min.insync.replicas=2, 1 KiB records):
#   produce_default     kafka-producer-perf-test, acks=all, the client's default batching,
#                       3 partitions: records/s and p99 latency
#   produce_b16k_l5     the same with batch.size=16384 linger.ms=5 (the 4.x defaults again,
#                       so these two rows also show the run-to-run noise)
#   one_at_a_time       acks=all, linger.ms=0, one request in flight, 200 records/s, 1
#                       partition: p50, p99, p99.9 latency
#   consume             kafka-consumer-perf-test over produce_default's records: records/s
#                       while fetching (the group's join is not counted)
#   e2e                 kafka-e2e-latency (EndToEndLatency), acks=all, 1 partition: p50,
#                       p99, p99.9
#   failover            kill -9 of the node leading a 1-partition topic (never the active
#                       controller) under a one-at-a-time acks=all producer: the longest
#                       time without an acknowledgement from the kill on (the kill to the
#                       first acknowledgement from the new leader)
#   restart             a node holding BIG_GIB GiB of logs (a 3-partition topic at RF 3)
#                       is killed with kill -9, and once the cluster has taken it out of
#                       every ISR started again: ms from its start until it is back in
#                       every ISR (log recovery, registration, catching up)
# Before the figures, N/2 records warm each cluster up (the JVMs' JIT), not counted.
# dd with fdatasync before and after (the disk's baseline in the same run). One RESULT line
# per figure: Strata's, Kafka's and strata/kafka (say for each whether higher is better).
# Kafka's JVMs get the heap Kafka's scripts give them (brokers -Xmx1G, the perf tools
# -Xmx512M). Usage (after a Release build):
#   tests/bench/kafka_sidebyside.sh [STRATA_ROOT]     (N=records, BIG_GIB, OUT=results dir)
set -euo pipefail
ROOT=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
HERE=$ROOT/tests/bench
N=${N:-200000}
BIG_GIB=${BIG_GIB:-4}
OUT=${OUT:-/tmp/kafka-sbs}
PEERS=${STRATA_PEERS_DIR:-$HOME/.cache/strata-peers}
[[ -f $PEERS/peers.env ]] || bash "$ROOT/scripts/install-peers.sh"
KAFKA_LIBS=$(sed -n 's/^KAFKA_LIBS=//p' "$PEERS/peers.env")
export STRATA_BIN_DIR=$ROOT/build/tools
[[ -x $STRATA_BIN_DIR/strata-server ]] || { echo "no Release build in $ROOT/build" >&2; exit 1; }
mkdir -p "$OUT"
: > "$OUT/results.txt"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/kafka-sbs.XXXXXX")
system=
cleanup() {
  bash "$HERE/kafka_cluster.sh" down "$DIR/kafka" > /dev/null 2>&1 || true
  "$ROOT/tools/strata-cluster" down --dir "$DIR/strata" > /dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
res() { echo "RESULT $*" | tee -a "$OUT/results.txt"; }
log() { echo "[$(date +%T)] $*" >&2; }
tool() { timeout 900 java -Xmx512M -cp "$KAFKA_LIBS/*" "$@" 2> >(grep -v '^SLF4J\|deprecated' >&2); }
probe() { timeout 900 java -Xmx512M -cp "$KAFKA_LIBS/*" "$HERE/java/BenchProbe.java" "$@" 2> /dev/null; }
topic() {  # NAME PARTITIONS [ASSIGNMENT]
  if [[ -n ${3:-} ]]; then
    tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BS" --create --topic "$1" \
      --replica-assignment "$3" --config min.insync.replicas=2 > /dev/null
  else
    tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BS" --create --topic "$1" --partitions "$2" \
      --replication-factor 3 --config min.insync.replicas=2 > /dev/null
  fi
}
perf() {  # TOPIC RECORDS THROUGHPUT PROPS...: the tool's summary line
  local t=$1 n=$2 rate=$3
  shift 3
  tool org.apache.kafka.tools.ProducerPerformance --topic "$t" --num-records "$n" --record-size 1024 \
    --throughput "$rate" --command-property bootstrap.servers="$BS" acks=all "$@" | tail -1
}
field() { sed -n "s|.* \([0-9.]*\) $1.*|\1|p" <<<"$2"; }  # the number before a label
declare -A FIG

ddrun() {
  local t0 t1
  rm -f "$DIR/dd.bin"
  t0=$(date +%s%N)
  dd if=/dev/zero of="$DIR/dd.bin" bs=1M count=512 conv=fdatasync 2> /dev/null
  t1=$(date +%s%N)
  rm -f "$DIR/dd.bin"
  res "dd_fdatasync_$1 MBps=$((512 * 1048576 * 1000 / (t1 - t0)))"
}

# The workloads against $BS; figures go to FIG[$system.<name>].
workloads() {
  local s=$system out controller victim others kill_ms start_ms
  log "$s: warm-up (not counted: the JVMs' JIT, the page cache)"
  topic warmup 3
  perf warmup $((N / 2)) -1 > /dev/null
  log "$s: produce"
  topic p_default 3
  topic p_b16k 3
  out=$(perf p_default "$N" -1)
  echo "$s produce_default: $out" >> "$OUT/log.txt"
  FIG[$s.produce_default]=$(field records/sec "$out")
  FIG[$s.produce_default_p99]=$(field "ms 99th" "$out")
  out=$(perf p_b16k "$N" -1 batch.size=16384 linger.ms=5)
  echo "$s produce_b16k_l5: $out" >> "$OUT/log.txt"
  FIG[$s.produce_b16k_l5]=$(field records/sec "$out")
  FIG[$s.produce_b16k_l5_p99]=$(field "ms 99th" "$out")

  log "$s: one at a time"
  topic one 1
  out=$(perf one 2000 200 linger.ms=0 max.in.flight.requests.per.connection=1)
  echo "$s one_at_a_time: $out" >> "$OUT/log.txt"
  FIG[$s.one_p50]=$(field "ms 50th" "$out")
  FIG[$s.one_p99]=$(field "ms 99th" "$out")
  FIG[$s.one_p999]=$(field "ms 99.9th" "$out")

  log "$s: consume"
  out=$(tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$BS" --topic p_default \
    --num-records "$N" --group "perf-$s" --timeout 120000 | tail -1)
  echo "$s consume: $out" >> "$OUT/log.txt"
  FIG[$s.consume]=$(cut -d, -f10 <<<"$out" | tr -d ' ')

  log "$s: end-to-end latency"
  topic e2e 1
  out=$(tool org.apache.kafka.tools.EndToEndLatency --bootstrap-server "$BS" --topic e2e --num-records 5000 \
    --producer-acks all --record-size 1024 | grep 'Avg latency\|Percentiles' | tr '\n' ' ')
  echo "$s e2e: $out" >> "$OUT/log.txt"
  FIG[$s.e2e_avg]=$(sed -n 's/.*Avg latency: \([0-9.]*\) ms.*/\1/p' <<<"$out")
  FIG[$s.e2e_p50]=$(sed -n 's/.*50th = \([0-9.]*\).*/\1/p' <<<"$out")
  FIG[$s.e2e_p99]=$(sed -n 's/.*99th = \([0-9.]*\),.*/\1/p' <<<"$out")
  FIG[$s.e2e_p999]=$(sed -n 's/.*99.9th = \([0-9.]*\).*/\1/p' <<<"$out")

  # The victim leads the failover topic and is not the active controller (a controller
  # failover is not what is measured).
  controller=$(tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-server "$BS" describe --status |
    sed -n 's/^LeaderId:[[:space:]]*//p')
  victim=$((controller % 3 + 1))
  others=$(for i in 1 2 3; do if [[ $i != "$victim" ]]; then printf ':%s' "$i"; fi; done)
  log "$s: failover (active controller $controller, killing node $victim)"
  topic fo 1 "$victim$others"
  probe acks "$BS" fo 25 > "$DIR/acks" &
  local p=$!
  for _ in $(seq 100); do [[ $(wc -l < "$DIR/acks") -ge 200 ]] && break; sleep 0.1; done
  kill_ms=$(date +%s%3N)
  kill_node "$victim"
  wait "$p" || true
  # The longest time without an acknowledgement from the kill on (an acknowledgement that
  # was on its way at the kill does not end the outage): the kill to the first
  # acknowledgement from the new leader.
  FIG[$s.failover]=$(awk -v k="$kill_ms" '$1 > k {after = 1; gap = $1 - (prev > k ? prev : k); if (gap > max) max = gap}
    {prev = $1} END {print after ? max : "none"}' "$DIR/acks")
  echo "$s failover: killed node $victim at $kill_ms; $(wc -l < "$DIR/acks") acknowledgements;" \
    "the longest gap after the kill ${FIG[$s.failover]} ms" >> "$OUT/log.txt"
  start_node "$victim"
  probe isr "$BS" fo 0 > /dev/null  # back in the ISR before the next part

  log "$s: restart with $BIG_GIB GiB"
  topic big 3
  perf big $((BIG_GIB * 1024 * 1024)) -1 batch.size=1048576 linger.ms=50 acks=1 >> "$OUT/log.txt"
  probe isr "$BS" big 0 > /dev/null
  du -sh "$DIR/$s/node-$victim" >> "$OUT/log.txt"
  kill_node "$victim"
  probe isr-without "$BS" big "$victim" > /dev/null  # fenced and out of every ISR first
  start_ms=$(date +%s%3N)
  start_node "$victim"
  FIG[$s.restart]=$(probe isr "$BS" big "$start_ms")
  log "$s: done"
}

ddrun before

system=kafka
log "Apache Kafka: 3 nodes, KRaft combined"
KAFKA_CLUSTER_PROPERTIES="group.initial.rebalance.delay.ms=0" bash "$HERE/kafka_cluster.sh" up "$DIR/kafka" 3 > /dev/null
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/kafka/cluster.env")
kill_node() { bash "$HERE/kafka_cluster.sh" kill "$DIR/kafka" "$1"; }
start_node() { bash "$HERE/kafka_cluster.sh" start "$DIR/kafka" "$1"; }
workloads
bash "$HERE/kafka_cluster.sh" down "$DIR/kafka" > /dev/null
rm -rf "$DIR/kafka"

system=strata
log "Strata: 3 combined nodes"
"$ROOT/tools/strata-cluster" up --dir "$DIR/strata" --combined 3 --override group.initial.rebalance.delay.ms=0 > /dev/null
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/strata/cluster.env")
kill_node() { "$ROOT/tools/strata-cluster" kill --dir "$DIR/strata" "$1" > /dev/null; }
start_node() { "$ROOT/tools/strata-cluster" start --dir "$DIR/strata" "$1" > /dev/null; }
workloads
"$ROOT/tools/strata-cluster" down --dir "$DIR/strata" > /dev/null
rm -rf "$DIR/strata"

ddrun after

row() {  # NAME UNIT BETTER
  local st=${FIG[strata.$1]:-} kf=${FIG[kafka.$1]:-} ratio=n/a
  if [[ $st =~ ^[0-9.]+$ && $kf =~ ^[0-9.]+$ ]] && awk -v k="$kf" 'BEGIN {exit !(k > 0)}'; then
    ratio=$(awk -v s="$st" -v k="$kf" 'BEGIN {printf "%.2f", s / k}')
  fi
  res "kafka_sbs_$1 strata=$st kafka=$kf strata/kafka=$ratio unit=$2 better=$3"
}
row produce_default records/s higher
row produce_default_p99 ms lower
row produce_b16k_l5 records/s higher
row produce_b16k_l5_p99 ms lower
row one_p50 ms lower
row one_p99 ms lower
row one_p999 ms lower
row consume records/s higher
row e2e_avg ms lower
row e2e_p50 ms lower
row e2e_p99 ms lower
row e2e_p999 ms lower
row failover ms lower
row restart ms lower
echo "results in $OUT/results.txt, the tools' own lines in $OUT/log.txt"
