#!/usr/bin/env bash
# Client quotas (KIP-546) with Kafka's own tools against one broker:
#  * kafka-configs --alter/--describe/--delete-config of a client id, a user, the default
#    client id and a user with the default client id; a fractional byte rate and an
#    unknown key refused; `strata quotas describe` agrees.
#  * kafka-producer-perf-test asking ten times its client id's producer_byte_rate
#    (1 MiB/s) is held to the quota within 10% over half a minute (its topic's log end
#    offset from about 12 s to 42 s), while a producer of another client id beside it
#    gets the rate it asks for; kafka-consumer-perf-test over its consumer_byte_rate
#    (1 MiB/s) is held likewise (its own per-interval figures over the same span).
#  * a producer of one-record requests under request_percentage is answered with
#    throttle times and sends far fewer than the same producer without the quota.
# Usage: client_quotas_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
source "$(dirname "$0")/peers_lib.sh"
tool() { kafka_tool "$@"; }
configs() { tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$BS" "$@"; }
QUOTA=1048576
REQUEST_PERCENTAGE=0.1
TINY_RECORDS=300

start_cluster client-quotas --controllers 1 --brokers 1 --override group.initial.rebalance.delay.ms=0

# kafka-configs on each kind of entity.
configs --alter --entity-type clients --entity-name slow --add-config producer_byte_rate=$QUOTA > /dev/null
configs --alter --entity-type clients --entity-name reader --add-config consumer_byte_rate=$QUOTA > /dev/null
configs --alter --entity-type users --entity-name alice --entity-type clients --entity-default \
  --add-config 'producer_byte_rate=2048,request_percentage=12.5' > /dev/null
configs --alter --entity-type clients --entity-default --add-config consumer_byte_rate=5000000 > /dev/null
out=$(configs --describe --entity-type clients --entity-name slow)
grep -q "producer_byte_rate=1048576" <<<"$out" || fail "kafka-configs --describe of client-id slow: $out"
out=$(configs --describe --entity-type users --entity-name alice --entity-type clients --entity-default)
grep -q "producer_byte_rate=2048" <<<"$out" && grep -q "request_percentage=12.5" <<<"$out" ||
  fail "kafka-configs --describe of user alice, default client id: $out"
out=$(configs --describe --entity-type clients --entity-default)
grep -q "consumer_byte_rate=5000000" <<<"$out" || fail "kafka-configs --describe of the default client id: $out"
for bad in producer_byte_rate=1.5 bytes_per_fortnight=1; do
  if out=$(configs --alter --entity-type clients --entity-name slow --add-config "$bad" 2>&1); then
    fail "kafka-configs --add-config $bad was accepted: $out"
  fi
  # The broker's INVALID_REQUEST, or the tool's own check of the key's name.
  grep -q "InvalidRequestException\|Unexpected config names" <<<"$out" || fail "kafka-configs --add-config $bad: $out"
done
configs --alter --entity-type users --entity-name alice --entity-type clients --entity-default \
  --delete-config request_percentage > /dev/null
entities=$("$S" quotas describe -o json | jq -c '[.[] | {entity, values}] | sort_by(.entity | tostring)')
want='[{"entity":{"client-id":"reader"},"values":{"consumer_byte_rate":1048576}},{"entity":{"client-id":"slow"},"values":{"producer_byte_rate":1048576}},{"entity":{"client-id":null,"user":"alice"},"values":{"producer_byte_rate":2048}},{"entity":{"client-id":null},"values":{"consumer_byte_rate":5000000}}]'
[[ $entities == "$want" ]] || fail "strata quotas describe: $entities"

# A full topic for the reader, written before any producer quota applies to its writer.
"$S" topics create q --partitions 1 --replication-factor 1 > /dev/null
"$S" topics create fill --partitions 1 --replication-factor 1 > /dev/null
"$S" topics create free --partitions 1 --replication-factor 1 > /dev/null
tool org.apache.kafka.tools.ProducerPerformance --topic fill --num-records 100000 --record-size 1024 --throughput -1 \
  --command-property bootstrap.servers="$BS" acks=1 client.id=filler > /dev/null

log_end() {
  tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BS" --topic "$1" --time -1 | awk -F: '{s += $3} END {print s}'
}
# The three clients at once: slow asks for 10 MiB/s (10x), free for 2,000 records/s,
# reader reads fill as fast as it may.
(timeout 100 java -cp "$(peer KAFKA_LIBS)/*" org.apache.kafka.tools.ProducerPerformance --topic q \
  --num-records 100000000 --record-size 1024 --throughput 10240 \
  --command-property bootstrap.servers="$BS" acks=1 client.id=slow > "$DIR/slow.out" 2>&1) &
BACKGROUND+=($!)
(timeout 100 java -cp "$(peer KAFKA_LIBS)/*" org.apache.kafka.tools.ProducerPerformance --topic free \
  --num-records 80000 --record-size 1024 --throughput 2000 \
  --command-property bootstrap.servers="$BS" acks=1 client.id=free > "$DIR/free.out" 2>&1) &
free_pid=$!
BACKGROUND+=($free_pid)
(timeout 110 java -cp "$(peer KAFKA_LIBS)/*" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$BS" \
  --topic fill --messages 50000 --timeout 100000 --show-detailed-stats --reporting-interval 1000 \
  --command-property client.id=reader --command-property group.id=readers > "$DIR/reader.out" 2>&1) &
reader_pid=$!
BACKGROUND+=($reader_pid)
start=$(date +%s.%N)
sleep_until() { sleep "$(awk -v s="$start" -v t="$1" -v now="$(date +%s.%N)" 'BEGIN {d = s + t - now; print (d > 0 ? d : 0)}')"; }
sleep_until 12
first=$(log_end q)
t1=$(date +%s.%N)
sleep_until 42
second=$(log_end q)
t2=$(date +%s.%N)
rate=$(awk -v a="$first" -v b="$second" -v t1="$t1" -v t2="$t2" 'BEGIN {printf "%.0f", (b - a) * 1024 / (t2 - t1)}')
echo "producer at 10x its quota of $QUOTA B/s: $rate B/s of records over $(awk -v a="$t1" -v b="$t2" 'BEGIN {printf "%.1f", b - a}') s"
awk -v r="$rate" -v q=$QUOTA 'BEGIN {exit !(r >= 0.9 * q && r <= 1.1 * q)}' || fail "the throttled producer made $rate B/s"
wait "$free_pid" || fail "the unthrottled producer failed: $(tail -3 "$DIR/free.out")"
summary=$(grep 'records sent' "$DIR/free.out" | tail -1)
echo "the other producer: $summary"
awk -v s="$(sed 's/.*sent, \([0-9.]*\) records\/sec.*/\1/' <<<"$summary")" 'BEGIN {exit !(s >= 1900)}' ||
  fail "the producer without a quota was slowed: $summary"
# The reader's figures, a line about every second: "yyyy-MM-dd HH:mm:ss:SSS, thread,
# MiB consumed so far, ...". The MiB from its 12th second to its 42nd, by its own clock.
wait "$reader_pid" || true
read_rate=$(awk -F, '
  /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] / {
    split($1, d, /[ :]/); t = d[2] * 3600 + d[3] * 60 + d[4] + d[5] / 1000
    if (t0 == "") t0 = t
    if (a == "" && t >= t0 + 12) {a = $3; ta = t}
    if (b == "" && t >= t0 + 42) {b = $3; tb = t}
  }
  END {if (b == "") print "none"; else printf "%.0f", (b - a) * 1048576 / (tb - ta)}' "$DIR/reader.out")
echo "consumer over its quota of $QUOTA B/s: $read_rate B/s from its 12th to its 42nd second"
awk -v r="$read_rate" -v q=$QUOTA 'BEGIN {exit !(r >= 0.9 * q && r <= 1.1 * q)}' ||
  fail "the throttled consumer read $read_rate B/s: $(grep -v SLF4J "$DIR/reader.out" | sed -n '1,4p;$p')"

# request_percentage: a producer of tiny requests (one record each, acks=1, as fast as
# it may) under a request quota is answered with throttle times — its own
# produce-throttle-time metric and the broker's for its entity say so — and sends far
# fewer requests than the same producer of a client id without the quota.
configs --alter --entity-type clients --entity-name busy --add-config request_percentage=$REQUEST_PERCENTAGE > /dev/null
"$S" topics create tiny --partitions 1 --replication-factor 1 > /dev/null
tiny_producer() {  # client id
  timeout 100 java -cp "$(peer KAFKA_LIBS)/*" org.apache.kafka.tools.ProducerPerformance --topic tiny \
    --num-records $TINY_RECORDS --record-size 10 --throughput -1 --print-metrics \
    --command-property bootstrap.servers="$BS" acks=1 linger.ms=0 batch.size=16 max.in.flight.requests.per.connection=1 \
    client.id="$1" > "$DIR/$1.out" 2>&1 || fail "the producer of client id $1 failed: $(tail -3 "$DIR/$1.out")"
  grep 'records sent' "$DIR/$1.out" | tail -1 | sed 's/.*sent, \([0-9.]*\) records\/sec.*/\1/'
}
busy_rate=$(tiny_producer busy)
unbound_rate=$(tiny_producer unbound)
busy_throttle=$(sed -n 's/^producer-metrics:produce-throttle-time-max:{client-id=busy} *: *//p' "$DIR/busy.out")
unbound_throttle=$(sed -n 's/^producer-metrics:produce-throttle-time-max:{client-id=unbound} *: *//p' "$DIR/unbound.out")
port=$(sed -n 's/^metrics.listener=.*://p' "$DIR/node-2/server.properties")
busy_metric() {  # family: its value for client id busy, type Request
  curl -s "http://127.0.0.1:$port/metrics" |
    awk -v f="$1" 'index($0, f "{") == 1 && /client_id="busy"/ && /type="Request"/ {print $NF}'
}
broker_throttled=$(busy_metric strata_client_quota_throttled_total)
request_time=$(busy_metric strata_client_quota_request_time_percent)
echo "request_percentage=$REQUEST_PERCENTAGE: $busy_rate records/s (throttle max $busy_throttle ms, broker's" \
  "throttled answers $broker_throttled, request time ${request_time}%); without it: $unbound_rate records/s" \
  "(throttle max $unbound_throttle ms)"
awk -v t="$busy_throttle" 'BEGIN {exit !(t > 0)}' || fail "the producer under request_percentage saw no throttle time"
awk -v t="${unbound_throttle:-0}" 'BEGIN {exit !(t == 0)}' || fail "the producer without a quota was throttled"
awk -v t="${broker_throttled:-0}" 'BEGIN {exit !(t > 0)}' || fail "the broker counted no throttled answer for busy"
awk -v b="$busy_rate" -v u="$unbound_rate" 'BEGIN {exit !(b * 2 < u)}' ||
  fail "under request_percentage $busy_rate records/s, without it $unbound_rate"

finish client_quotas_test
