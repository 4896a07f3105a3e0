#!/usr/bin/env bash
# Compatibility: the load tools of Kafka 4.4.0 (scripts/install-peers.sh) against a Strata
# cluster of one controller and three brokers, topics at RF 3 with min.insync.replicas=2:
#   kafka-producer-perf-test and kafka-consumer-perf-test: every record sent is acked and
#     then consumed (the figures they print are not checked here: tests/bench/ measures);
#   kafka-verifiable-producer and kafka-verifiable-consumer, the tools of Kafka's own system
#     tests: the producer (acks=all, idempotent by default) runs across a kill -9 of a
#     partition leader; every value it reports acknowledged is consumed, at the partition
#     and offset the acknowledgement named, and no value is stored twice.
# Usage: kafka_verifiable_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
PEERS=${STRATA_PEERS_DIR:-$HOME/.cache/strata-peers}
[[ -f $PEERS/peers.env ]] || { echo "no test peers in $PEERS: bash scripts/install-peers.sh" >&2; exit 1; }
KAFKA_LIBS=$(sed -n 's/^KAFKA_LIBS=//p' "$PEERS/peers.env")
S="$STRATA_BIN_DIR/strata"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-kafka-verifiable-test.XXXXXX")
producer=
cleanup() {
  [[ -n $producer ]] && kill "$producer" 2> /dev/null
  "$CLUSTER" down --dir "$DIR" > /dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }
tool() { timeout 240 java -cp "$KAFKA_LIBS/*" "$@" 2> >(grep -v '^SLF4J\|deprecated' >&2); }

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 --override group.initial.rebalance.delay.ms=0 > /dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
for t in perf verified; do
  "$S" topics create $t --partitions 3 --replication-factor 3 --config min.insync.replicas=2 > /dev/null
done

# The perf tests: 50,000 records of 1 KiB out and back in.
out=$(tool org.apache.kafka.tools.ProducerPerformance --topic perf --num-records 50000 --record-size 1024 \
  --throughput -1 --command-property bootstrap.servers="$BS" acks=all | tail -1)
echo "kafka-producer-perf-test: $out"
[[ $out == "50000 records sent,"* ]] || fail "kafka-producer-perf-test: $out"
stored=$(tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BS" --topic perf --time -1 |
  awk -F: '{s += $3} END {print s}')
[[ $stored == 50000 ]] || fail "perf: $stored records stored, not 50000"
out=$(tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$BS" --topic perf --num-records 50000 \
  --group perf-readers --timeout 60000 | tail -1)
echo "kafka-consumer-perf-test: $out"
[[ $(cut -d, -f5 <<<"$out" | tr -d ' ') == 50000 ]] || fail "kafka-consumer-perf-test consumed: $out"

# The verifiable producer across a kill -9 of partition 0's leader.
tool org.apache.kafka.tools.VerifiableProducer --bootstrap-server "$BS" --topic verified \
  --max-messages 20000 --throughput 2000 --acks -1 > "$DIR/produced" &
producer=$!
for _ in $(seq 600); do
  [[ $(grep -c producer_send_success "$DIR/produced") -ge 4000 ]] && break
  kill -0 "$producer" 2> /dev/null || break
  sleep 0.1
done
leader=$("$S" topics describe verified -o json | jq -r '.[0].partitions[] | select(.partition == 0) | .leader')
echo "killing broker $leader (partition 0's leader) after $(grep -c producer_send_success "$DIR/produced") acknowledgements"
"$CLUSTER" kill --dir "$DIR" "$leader"
wait "$producer" || fail "kafka-verifiable-producer exited $?"
producer=
"$CLUSTER" start --dir "$DIR" "$leader" > /dev/null
grep producer_send_success "$DIR/produced" | jq -r '"\(.value) \(.partition) \(.offset)"' | sort > "$DIR/acked"
acked=$(wc -l < "$DIR/acked")
errors=$(grep -c producer_send_error "$DIR/produced" || true)
echo "verifiable producer: $acked acknowledged, $errors send errors"
[[ $acked == 20000 ]] || fail "$acked of 20000 acknowledged ($errors send errors)"

# The verifiable consumer reads every record of the topic (its end offsets) in a group.
end=$(tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BS" --topic verified --time -1 |
  awk -F: '{s += $3} END {print s}')
tool org.apache.kafka.tools.VerifiableConsumer --bootstrap-server "$BS" --topic verified --group-id verifiers \
  --reset-policy earliest --max-messages "$end" --verbose > "$DIR/consumed"
grep '"record_data"' "$DIR/consumed" | jq -r '"\(.value) \(.partition) \(.offset)"' | sort -u > "$DIR/read"
missing=$(comm -23 "$DIR/acked" "$DIR/read" | wc -l)
doubled=$(cut -d' ' -f1 "$DIR/read" | sort | uniq -d | wc -l)
echo "verifiable consumer: $(wc -l < "$DIR/read") records read of $end stored; $missing acknowledged missing, $doubled values twice"
[[ $missing == 0 ]] || fail "acknowledged records not consumed where acked: $(comm -23 "$DIR/acked" "$DIR/read" | head -5)"
[[ $doubled == 0 ]] || fail "values stored twice: $(cut -d' ' -f1 "$DIR/read" | sort | uniq -d | head -5)"

if (( failures > 0 )); then exit 1; fi
echo "Kafka verifiable test passed"
