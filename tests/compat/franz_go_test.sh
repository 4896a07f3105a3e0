#!/usr/bin/env bash
# Compatibility: franz-go (pinned by franz_go/go.mod, fetched by scripts/install-peers.sh
# into its module cache; built here offline) against a Strata cluster of one controller
# and three brokers, a topic of 3 partitions at RF 3 with min.insync.replicas=2: an
# idempotent acks=all producer and a consumer group member run together across a kill -9
# of partition 0's leader. Every acknowledged record is read, at the partition and offset
# acknowledged; no value is stored twice; none is delivered twice. Then transactions
# (franz_go txn): committed and aborted transactions read read_committed, and a
# GroupTransactSession copying one topic to another.
# Usage: franz_go_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/peers_lib.sh"

start_cluster franz-go-test --controllers 1 --brokers 3 --override group.initial.rebalance.delay.ms=0
(cd "$HERE/franz_go" && GOMODCACHE=$(peer GOMODCACHE) GOFLAGS=-mod=readonly \
   GOPROXY=off go build -o "$DIR/franz_go" .)

"$S" topics create franz --partitions 3 --replication-factor 3 --config min.insync.replicas=2 > /dev/null

COUNT=20000
timeout 300 "$DIR/franz_go" consume "$BS" franz readers "$COUNT" "$DIR/read" &
consumer=$!
BACKGROUND+=("$consumer")
timeout 300 "$DIR/franz_go" produce "$BS" franz "$COUNT" "$DIR/acked" &
producer=$!
BACKGROUND+=("$producer")
kill_leader_after "$DIR/acked" 4000 "$producer" franz
wait "$producer" || fail "the franz-go producer across the kill"
"$CLUSTER" start --dir "$DIR" "$KILLED" > /dev/null
wait "$consumer" || fail "the franz-go group member across the kill"

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

"$S" topics create franz-txn-in --partitions 3 --replication-factor 3 --config min.insync.replicas=2 > /dev/null
"$S" topics create franz-txn-out --partitions 3 --replication-factor 3 --config min.insync.replicas=2 > /dev/null
timeout 300 "$DIR/franz_go" txn "$BS" franz-txn-in franz-txn-out || fail "franz-go transactions"

finish "franz-go test"
