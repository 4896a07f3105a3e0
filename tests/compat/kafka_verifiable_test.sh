#!/usr/bin/env bash
# Compatibility: the load tools of Kafka 4.4.0 (scripts/install-peers.sh) against a Strata
# cluster of one controller and three brokers, topics at RF 3 with min.insync.replicas=2:
#   kafka-producer-perf-test and kafka-consumer-perf-test: every record sent is acked and
#     then consumed (the figures they print are not checked here: tests/bench/ measures);
#   kafka-verifiable-producer and kafka-verifiable-consumer, the tools of Kafka's own system
#     tests: the producer (acks=all; the tool sets retries=0, so no idempotence) runs across
#     a kill -9 of a partition leader; each of its values is acknowledged or reported
#     failed, every value it reports acknowledged is consumed at the partition and offset
#     the acknowledgement named, and no value is stored twice.
# Usage: kafka_verifiable_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
source "$(dirname "$0")/peers_lib.sh"
tool() { kafka_tool "$@"; }

start_cluster kafka-verifiable-test --controllers 1 --brokers 3 --override group.initial.rebalance.delay.ms=0
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
BACKGROUND+=("$producer")
kill_leader_after "$DIR/produced" 4000 "$producer" verified
wait "$producer" || fail "kafka-verifiable-producer exited $?"
"$CLUSTER" start --dir "$DIR" "$KILLED" > /dev/null
grep producer_send_success "$DIR/produced" | jq -r '"\(.value) \(.partition) \(.offset)"' | sort > "$DIR/acked"
acked=$(wc -l < "$DIR/acked")
errors=$(grep -c producer_send_error "$DIR/produced" || true)
echo "verifiable producer: $acked acknowledged, $errors send errors"
# The tool sends with retries=0 (as in Kafka's system tests): a send in flight to the
# killed leader fails instead of being retried, so a few errors are expected. Every one
# of the 20,000 is either acknowledged or reported failed.
if ((errors > 0)); then
  echo "the send errors:"
  grep producer_send_error "$DIR/produced" | jq -r '"\(.exception): \(.message)"' | sort | uniq -c
fi
[[ $((acked + errors)) == 20000 ]] || fail "$acked acknowledged and $errors failed of 20000"

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

finish "Kafka verifiable test"
