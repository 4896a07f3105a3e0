#!/usr/bin/env bash
# Controller figures with real processes (3 controllers + 3 brokers, strata-cluster):
#   * time to create 1,000 partitions with RF 3 (one CreateTopics), against the time of
#     a CreateTopics of 1 partition in the same run (the fixed cost);
#   * time from kill -9 of a broker to all of its leaderships moved (the session
#     timeout it waits for is printed with it);
#   * RSS of the active controller before any topic and with 10,000 partitions.
# Prints figures only. Usage: controller_bench.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
S="$STRATA_BIN_DIR/strata"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-controller-bench.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
SESSION_MS=${SESSION_MS:-2000}
"$CLUSTER" up --dir "$DIR" --controllers 3 --brokers 3 --override broker.session.timeout.ms=$SESSION_MS \
  --override broker.heartbeat.interval.ms=200 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$(cat "$DIR/node-$1/pid")/status"; }

active=$("$S" quorum describe -o json | jq .leader_id)
echo "figure: active controller RSS with 0 partitions: $(rss_kb "$active") kB"
t=$(date +%s%N); "$S" topics create one --partitions 1 --replication-factor 3 >/dev/null
echo "figure: CreateTopics 1 partition RF 3: $(ms "$t") ms (baseline)"
t=$(date +%s%N); "$S" topics create thousand --partitions 1000 --replication-factor 3 >/dev/null
echo "figure: CreateTopics 1000 partitions RF 3: $(ms "$t") ms"
for i in $(seq 1 9); do "$S" topics create "bulk$i" --partitions 1000 --replication-factor 3 >/dev/null; done
total=$("$S" topics describe -o json | jq '[.[].partitions | length] | add')
echo "figure: active controller RSS with $total partitions: $(rss_kb "$active") kB"

victim=4
led=$("$S" topics describe -o json | jq --argjson b $victim '[.[].partitions[] | select(.leader == $b)] | length')
t=$(date +%s%N)
"$CLUSTER" kill --dir "$DIR" $victim
until "$S" topics describe -o json | jq -e --argjson b $victim '[.[].partitions[] | select(.leader == $b)] | length == 0' >/dev/null; do
  sleep 0.02  # polling for the moment the last leadership moved
done
echo "figure: kill -9 of broker $victim ($led leaderships) -> all moved: $(ms "$t") ms (broker.session.timeout.ms=$SESSION_MS)"
