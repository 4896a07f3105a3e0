#!/usr/bin/env bash
# Compatibility: franz-go (pinned by franz_go/go.mod, fetched by scripts/install-peers.sh
# into its module cache; built here offline) against a Strata cluster of one controller
# and three brokers, a topic of 3 partitions at RF 3 with min.insync.replicas=2: an
# idempotent acks=all producer and a consumer group member run together across a kill -9
# of partition 0's leader. Every acknowledged record is read, at the partition and offset
# acknowledged; no value is stored twice; none is delivered twice.
# Usage: franz_go_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=${STRATA_PEERS_DIR:-$HOME/.cache/strata-peers}
[[ -f $PEERS/peers.env ]] || { echo "no test peers in $PEERS: bash scripts/install-peers.sh" >&2; exit 1; }
S="$STRATA_BIN_DIR/strata"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-franz-go-test.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  "$CLUSTER" down --dir "$DIR" > /dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }

(cd "$HERE/franz_go" && GOMODCACHE=$(sed -n 's/^GOMODCACHE=//p' "$PEERS/peers.env") GOFLAGS=-mod=readonly \
   GOPROXY=off go build -o "$DIR/franz_go" .)

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 --override group.initial.rebalance.delay.ms=0 > /dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
"$S" topics create franz --partitions 3 --replication-factor 3 --config min.insync.replicas=2 > /dev/null

COUNT=20000
timeout 300 "$DIR/franz_go" consume "$BS" franz readers "$COUNT" "$DIR/read" &
consumer=$!
pids+=("$consumer")
timeout 300 "$DIR/franz_go" produce "$BS" franz "$COUNT" "$DIR/acked" &
producer=$!
pids+=("$producer")
for _ in $(seq 600); do
  [[ -f $DIR/acked && $(wc -l < "$DIR/acked") -ge 4000 ]] && break
  kill -0 "$producer" 2> /dev/null || break
  sleep 0.1
done
leader=$("$S" topics describe franz -o json | jq -r '.[0].partitions[] | select(.partition == 0) | .leader')
echo "killing broker $leader (partition 0's leader) after $(wc -l < "$DIR/acked") acknowledgements"
"$CLUSTER" kill --dir "$DIR" "$leader"
wait "$producer" || fail "the franz-go producer across the kill"
"$CLUSTER" start --dir "$DIR" "$leader" > /dev/null
wait "$consumer" || fail "the franz-go group member across the kill"
pids=()

sort -u "$DIR/acked" > "$DIR/acked.sorted"
sort "$DIR/read" > "$DIR/read.sorted"
missing=$(comm -23 "$DIR/acked.sorted" <(sort -u "$DIR/read") | wc -l)
stored_twice=$(sort -u "$DIR/read" | cut -d' ' -f1 | sort | uniq -d | wc -l)
delivered_twice=$(uniq -d "$DIR/read.sorted" | wc -l)
echo "franz-go: $(wc -l < "$DIR/acked.sorted") acknowledged, $(wc -l < "$DIR/read") read;" \
  "$missing acknowledged missing, $stored_twice values stored twice, $delivered_twice records delivered twice"
[[ $(wc -l < "$DIR/acked.sorted") == "$COUNT" ]] || fail "$(wc -l < "$DIR/acked.sorted") of $COUNT acknowledged"
[[ $missing == 0 ]] || fail "acknowledged records not read where acknowledged: $(comm -23 "$DIR/acked.sorted" <(sort -u "$DIR/read") | head -3)"
[[ $stored_twice == 0 ]] || fail "values stored twice: $(sort -u "$DIR/read" | cut -d' ' -f1 | sort | uniq -d | head -3)"
[[ $delivered_twice == 0 ]] || fail "records delivered twice: $(uniq -d "$DIR/read.sorted" | head -3)"

if (( failures > 0 )); then exit 1; fi
echo "franz-go test passed"
