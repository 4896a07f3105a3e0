#!/usr/bin/env bash
# The metadata quorum with QUORUM partitions (default 100,000), more than the brokers of
# this machine can host (20,000 open files per process, one per partition): 3
# controllers and 5 brokers (strata-cluster, 127.0.0.1), where
#   * brokers 4, 5 and 6 host HOSTED partitions (default 10,000, RF 3, topics hosted-*);
#   * broker 7 is assigned all the others (RF 1, topics image-*), and is stopped
#     (SIGSTOP) before any of them is created: they live in the controllers' image, and
#     every broker's, alone (broker.session.timeout.ms is 10 minutes here, so that it
#     stays their leader while stopped);
#   * broker 8 hosts nothing; it is started again from nothing but its meta.properties,
#     so that it loads the image from the quorum's snapshot.
# Snapshots are taken every 256 KiB of metadata (metadata.log.max.record.bytes.between.
# snapshots), so that the latest one holds nearly every partition.
# Prints one `RESULT scale_quorum key=value ...` line:
#   create_ms_median/max: `strata topics create` of each 1,000-partition topic;
#   snapshot_index, snapshot_bytes: the active controller's latest snapshot;
#   broker_start_ms: broker 8's process start to its image caught up with the quorum
#     (its log's first line to "caught up with the metadata log": the snapshot restored,
#     broker_snapshots_restored of them, then the log's tail), and broker_ready_ms:
#     `strata-cluster start` to "broker 8: unfenced" in its log;
#   apply_ms_median: one metadata change that names one partition, on brokers 4-6
#     (PROBES config changes, as scale_bench.sh);
#   controller_failover_ms: kill -9 of the active controller to the first CreateTopics
#     the new one answers.
# Usage: scale_quorum_bench.sh <bin dir> <strata-cluster>   (env: QUORUM, HOSTED, PROBES, SCALE_DIR: see scale_bench.sh)
set -euo pipefail
export STRATA_BIN_DIR=$(cd "${1:?usage: $0 <bin dir> <strata-cluster>}" && pwd)
CLUSTER=$(cd "$(dirname "${2:?usage: $0 <bin dir> <strata-cluster>}")" && pwd)/$(basename "$2")
S="$STRATA_BIN_DIR/strata"
QUORUM=${QUORUM:-100000}
HOSTED=${HOSTED:-10000}
PROBES=${PROBES:-10}
DIR=$(mktemp -d "${SCALE_DIR:-/tmp}/strata-scale-quorum.XXXXXX")
d="$DIR/q"
cleanup() {
  [ -f "$d/node-7/pid" ] && kill -CONT "$(cat "$d/node-7/pid")" 2>/dev/null || true
  "$CLUSTER" down --dir "$d" >/dev/null 2>&1 || true
  [ -n "${KEEP:-}" ] || rm -rf "$DIR"
}
trap cleanup EXIT INT TERM
source "$(dirname "$0")/scale_lib.sh"
deadline() {  # deadline <started ms> <seconds> <what>
  if [ $(( $(now_ms) - $1 )) -gt $(( $2 * 1000 )) ]; then echo "$3 not within $2 s" >&2; exit 1; fi
}
# "a:b:c" for each of n partitions, rotating over the brokers given.
assignment() {
  local n=$1; shift
  awk -v n="$n" -v b="$*" 'BEGIN {k = split(b, ids, " "); for (p = 0; p < n; ++p) {
      s = ""; for (r = 0; r < k; ++r) s = s (r ? ":" : "") ids[(p + r) % k + 1]; printf "%s%s", (p ? "," : ""), s } }'
}

"$CLUSTER" up --dir "$d" --controllers 3 --brokers 5 --override broker.session.timeout.ms=600000 \
  --override metadata.log.max.record.bytes.between.snapshots=262144 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$d/cluster.env")

# Hosted: RF 3 on brokers 4-6.
started=$(now_ms); left=$HOSTED; i=0
while [ "$left" -gt 0 ]; do
  n=$(( left < 1000 ? left : 1000 ))
  "$S" topics create "hosted-$i" --replica-assignment "$(assignment "$n" 4 5 6)" >/dev/null
  left=$(( left - n )); i=$(( i + 1 ))
done
"$S" topics create probe --replica-assignment "4:5:6" >/dev/null
for b in 4 5 6; do
  until [ "$(metric "$(metrics_address "$d/node-$b")" strata_partitions)" = "$(( HOSTED + 1 ))" ]; do
    deadline "$started" 600 "broker $b hosting $HOSTED partitions"
    sleep 0.5  # polling the broker's gauge, with the deadline above
  done
done
hosted_s=$(awk -v m=$(( $(now_ms) - started )) 'BEGIN {printf "%.1f", m / 1000}')

# In the image alone: RF 1 on broker 7, stopped first.
kill -STOP "$(cat "$d/node-7/pid")"
creates=(); left=$(( QUORUM - HOSTED - 1 )); i=0
one_each=$(assignment 1000 7)
while [ "$left" -gt 0 ]; do
  n=$(( left < 1000 ? left : 1000 ))
  a=$one_each; [ "$n" -lt 1000 ] && a=$(assignment "$n" 7)
  t0=$(now_ms)
  "$S" topics create "image-$i" --replica-assignment "$a" >/dev/null
  creates+=($(( $(now_ms) - t0 )))
  left=$(( left - n )); i=$(( i + 1 ))
done
create_med=$(printf '%s\n' "${creates[@]}" | median); create_max=$(printf '%s\n' "${creates[@]}" | sort -n | tail -1)

# The apply cost on the hosting brokers, once they are quiet (as scale_bench.sh).
apply_brokers=$(apply_cost "$d" probe "$PROBES" 4 5 6)
apply_ms=$(tr , '\n' <<<"$apply_brokers" | median)

# The active controller's latest snapshot.
active=$("$S" cluster describe -o json | jq -r .controller_id)
latest=$(ls -d "$d/node-$active/metadata/snapshots/"*.checkpoint 2>/dev/null | sort | tail -1 || true)
if [ -z "$latest" ]; then echo "controller $active has taken no snapshot" >&2; exit 1; fi
snapshot_index=$(basename "$latest" | sed 's/-.*//; s/^0*//')
snapshot_bytes=$(du -sb "$latest" | cut -f1)

# Broker 8 from nothing but its meta.properties: the image comes from the snapshot.
"$CLUSTER" kill --dir "$d" 8 >/dev/null
md="$d/node-8/metadata"
cp "$md/meta.properties" "$DIR/meta.properties.8"
rm -rf "$md"; mkdir -p "$md"; cp "$DIR/meta.properties.8" "$md/meta.properties"
: > "$d/node-8/server.log"
t0=$(now_ms)
"$CLUSTER" start --dir "$d" 8 >/dev/null
until grep -q "broker 8: caught up with the metadata log" "$d/node-8/server.log"; do
  deadline "$t0" 120 "broker 8 catching up with the metadata"
  sleep 0.05  # polling its log, with the deadline above
done
restored=$(grep -c "metadata image restored from snapshot" "$d/node-8/server.log" || true)
# From its log: its first line (the process started) to its image caught up.
broker_start_ms=$(awk '/^\[20/ {gsub(/[\[\]]/, "", $2); split($2, t, ":"); ms = (t[1] * 3600 + t[2] * 60 + t[3]) * 1000;
                    if (first == "") first = ms; if ($0 ~ /caught up with the metadata log/) {printf "%d", ms - first; exit}}' \
                  "$d/node-8/server.log")
until grep -q "broker 8: unfenced" "$d/node-8/server.log"; do
  deadline "$t0" 120 "broker 8 unfenced"
  sleep 0.05  # polling its log, with the deadline above
done
broker_ready_ms=$(( $(now_ms) - t0 ))

# Controller failover.
t0=$(now_ms)
"$CLUSTER" kill --dir "$d" "$active" >/dev/null
until "$S" topics create failover-probe --replica-assignment "4:5:6" >/dev/null 2>&1; do
  deadline "$t0" 60 "a new controller"
done
failover_ms=$(( $(now_ms) - t0 ))

echo "RESULT scale_quorum partitions=$QUORUM hosted=$HOSTED hosted_s=$hosted_s create_ms_median=$create_med" \
     "create_ms_max=$create_max snapshot_index=$snapshot_index snapshot_bytes=$snapshot_bytes" \
     "broker_start_ms=$broker_start_ms broker_snapshots_restored=$restored broker_ready_ms=$broker_ready_ms" \
     "apply_ms_median=$apply_ms apply_ms_brokers=$apply_brokers controller_failover_ms=$failover_ms"
