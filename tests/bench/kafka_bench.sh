#!/usr/bin/env bash
# Kafka data-path figures with real processes: one controller and one broker
# (strata-cluster), topics of RF 1 (replication is not there yet), records of 1 KiB
# (null key), acks=1:
#   * strata-perf produce and consume: records/s, MB/s, per-request latency;
#   * a real client in the same run — kcat (librdkafka) producing the same number of
#     1 KiB lines (-X acks=1 -X linger.ms=5 -X batch.size=16384) and consuming the
#     topic strata-perf wrote (-C -e -o beginning -q), timed by this script;
#   * raw baselines in the same run, before and after, so the state of a shared
#     machine shows: dd of the same bytes to the broker's filesystem with
#     conv=fdatasync, and a loopback TCP copy of the same bytes.
# MB = 2^20 bytes, of record values (N x 1 KiB) unless the column says otherwise.
# Wall times include process start, metadata and connection setup; strata-perf's own
# figure counts from its first request to its last response.
# Prints figures only (nothing is asserted beyond every record arriving).
# Usage: kafka_bench.sh <bin dir> <strata-cluster>; N (records, default 200000),
# PARTITIONS (default 3), BATCH_SIZE (bytes, default 16384) from the environment.
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
command -v kcat >/dev/null || { echo "kcat is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
S="$STRATA_BIN_DIR/strata"
PERF="$STRATA_BIN_DIR/strata-perf"
N=${N:-200000}
PARTITIONS=${PARTITIONS:-3}
BATCH_SIZE=${BATCH_SIZE:-16384}
RECORD=1024
BYTES=$((N * RECORD))
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-kafka-bench.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT

now() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.1f", (s > 0 ? b / 1048576 / s : 0) }'; }
ROWS=()
# row NAME SECONDS TOOL_RECORDS_PER_S TOOL_MB_PER_S LATENCY
row() { ROWS+=("$(printf '%-50s %9s %11s %9s %11s %9s  %s' "$1" "$2" "$(rate $N "$2")" "$(mbps $BYTES "$2")" "$3" "$4" "$5")"); }

baselines() {  # $1: label
  local t0 t1 copy
  t0=$(now)
  head -c "$BYTES" /dev/zero | dd of="$DIR/dd.bin" bs=1M iflag=fullblock conv=fdatasync status=none
  t1=$(now)
  rm -f "$DIR/dd.bin"
  row "baseline $1: dd of the bytes, conv=fdatasync" "$(secs "$t0" "$t1")" - - -
  copy=$(python3 - "$BYTES" <<'PY'
import socket, sys, threading, time
total = int(sys.argv[1]); chunk = b"x" * (1 << 20)
server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(1)
def sink():
    conn, _ = server.accept(); got = 0
    while got < total:
        data = conn.recv(1 << 20)
        if not data: break
        got += len(data)
    conn.close()
t = threading.Thread(target=sink); t.start()
client = socket.create_connection(server.getsockname()); start = time.perf_counter(); left = total
while left > 0:
    n = min(left, len(chunk)); client.sendall(chunk[:n]); left -= n
client.close(); t.join(); print("%.3f" % (time.perf_counter() - start))
PY
)
  row "baseline $1: loopback TCP copy (python)" "$copy" - - -
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
baselines before

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 1 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
"$S" topics create perf --partitions "$PARTITIONS" --replication-factor 1 >/dev/null
"$S" topics create kcat --partitions "$PARTITIONS" --replication-factor 1 >/dev/null

latency() {  # $1: JSON, $2: field
  jq -r --arg f "$2" '.[$f] | "p50 \(.p50_ms*100|round/100) p99 \(.p99_ms*100|round/100) p999 \(.p999_ms*100|round/100) max \(.max_ms*100|round/100) ms"' <<<"$1"
}

t0=$(now)
produced=$("$PERF" produce --bootstrap-server "$BS" --topic perf --num-records "$N" --record-size $RECORD \
  --batch-size "$BATCH_SIZE" --acks 1 --json)
t1=$(now)
[[ $(jq .records_acked <<<"$produced") == "$N" ]] || { echo "strata-perf produce: $produced" >&2; exit 1; }
row "strata-perf produce (acks=1, in flight 5)" "$(secs "$t0" "$t1")" "$(jq '.records_per_s|round' <<<"$produced")" \
  "$(jq '.mb_per_s*10|round/10' <<<"$produced")" "request $(latency "$produced" request_latency)"

t0=$(now)
consumed=$("$PERF" consume --bootstrap-server "$BS" --topic perf --json)
t1=$(now)
[[ $(jq .records <<<"$consumed") == "$N" ]] || { echo "strata-perf consume: $consumed" >&2; exit 1; }
row "strata-perf consume" "$(secs "$t0" "$t1")" "$(jq '.records_per_s|round' <<<"$consumed")" \
  "$(jq '.batch_mb_per_s*10|round/10' <<<"$consumed")b" "fetch $(latency "$consumed" fetch_latency)"

# N lines of 1024 printable bytes (kcat -l sends each line, without its newline, as a value).
python3 - "$N" >"$DIR/lines.txt" <<'PY'
import random, string, sys
r = random.Random(1); pool = "".join(r.choice(string.ascii_letters) for _ in range(1024 + 4096))
out = sys.stdout
for i in range(int(sys.argv[1])):
    at = (i * 37) % 4096
    out.write(pool[at:at + 1024] + "\n")
PY
cat "$DIR/lines.txt" >/dev/null  # in the page cache, as strata-perf's values are in memory
t0=$(now)
kcat -P -b "$BS" -t kcat -X acks=1 -X linger.ms=5 -X batch.size="$BATCH_SIZE" -l "$DIR/lines.txt" 2>"$DIR/kcat-p.err"
t1=$(now)
if [[ -s "$DIR/kcat-p.err" ]]; then echo "kcat -P said:" >&2; head -5 "$DIR/kcat-p.err" >&2; fi
landed=$("$PERF" consume --bootstrap-server "$BS" --topic kcat --json | jq .records)
[[ "$landed" == "$N" ]] || { echo "kcat produced $landed of $N records" >&2; exit 1; }
row "kcat -P (acks=1 linger.ms=5 batch.size=$BATCH_SIZE)" "$(secs "$t0" "$t1")" - - -

t0=$(now)
got=$(kcat -C -b "$BS" -t perf -e -o beginning -q | wc -c)
t1=$(now)
[[ "$got" == $((N * (RECORD + 1))) ]] || { echo "kcat -C printed $got bytes, want $((N * (RECORD + 1)))" >&2; exit 1; }
row "kcat -C -e -o beginning -q (topic perf)" "$(secs "$t0" "$t1")" - - -

baselines after
echo "machine: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
echo "N=$N records of $RECORD bytes, $PARTITIONS partitions, RF 1, 1 broker, batch.size $BATCH_SIZE"
printf '%-50s %9s %11s %9s %11s %9s  %s\n' "run" "wall s" "records/s" "MB/s" "tool rec/s" "tool MB/s" "latency"
printf '%s\n' "${ROWS[@]}"
echo "(records/s and MB/s: N records of $RECORD bytes over the wall time, also for the baselines, which move the"
echo " same bytes; tool figures are strata-perf's own; a trailing b counts record batches as fetched)"
