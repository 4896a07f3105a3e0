#!/usr/bin/env bash
# Compatibility: Kafka's own command-line tools (Apache Kafka's jars from
# scripts/install-peers.sh, run through their main classes on Debian's JDK) against a
# Strata cluster of one controller and three brokers: kafka-broker-api-versions;
# kafka-topics create, list, describe (leaders, replicas and ISRs as the controller has
# them), alter partitions and delete; kafka-console-producer and kafka-console-consumer
# (1,000 keyed records back in order, byte for byte); kafka-get-offsets.
# Usage: kafka_tools_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
PEERS=${STRATA_PEERS_DIR:-$HOME/.cache/strata-peers}
[[ -f $PEERS/peers.env ]] || { echo "no test peers in $PEERS: bash scripts/install-peers.sh" >&2; exit 1; }
KAFKA_LIBS=$(sed -n 's/^KAFKA_LIBS=//p' "$PEERS/peers.env")
S="$STRATA_BIN_DIR/strata"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-kafka-tools-test.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }
# A tool by its main class; SLF4J's notice that no logger is bound is dropped.
tool() { timeout 120 java -cp "$KAFKA_LIBS/*" "$@" 2> >(grep -v '^SLF4J' >&2); }

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")

# kafka-broker-api-versions: every broker, with Produce and Fetch usable.
versions=$(tool org.apache.kafka.tools.BrokerApiVersionsCommand --bootstrap-server "$BS")
[[ $(grep -c '(id: [0-9]* rack' <<<"$versions") == 3 ]] || fail "api versions of $(grep -c '(id:' <<<"$versions") brokers"
grep -q 'Produce(0): [0-9]* to [0-9]* \[usable: [0-9]*\]' <<<"$versions" || fail "Produce not usable: $versions"
grep -q 'Fetch(1): [0-9]* to [0-9]* \[usable: [0-9]*\]' <<<"$versions" || fail "Fetch not usable"

# kafka-topics.
topics() { tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BS" "$@"; }
topics --create --topic orders --partitions 3 --replication-factor 3 | grep -q 'Created topic orders' || fail "create"
[[ $(topics --list) == orders ]] || fail "list: $(topics --list)"
want=$("$S" topics describe orders -o json |
  jq -r '.[0].partitions[] | "\(.partition) \(.leader) \(.replicas | join(",")) \(.isr | join(","))"')
got=$(topics --describe --topic orders |
  sed -n 's/.*Partition: \([0-9]*\)[[:space:]]*Leader: \([0-9]*\)[[:space:]]*Replicas: \([0-9,]*\)[[:space:]]*Isr: \([0-9,]*\).*/\1 \2 \3 \4/p')
[[ -n "$got" && "$got" == "$want" ]] || fail "describe: $got; the controller: $want"
topics --alter --topic orders --partitions 5
[[ $("$S" topics describe orders -o json | jq '.[0].partitions | length') == 5 ]] || fail "alter to 5 partitions"

# kafka-console-producer and -consumer: keyed records back in order.
seq 1000 | awk '{printf "k%d:v%d\n", $1 % 7, $1}' > "$DIR/sent"
tool org.apache.kafka.tools.ConsoleProducer --bootstrap-server "$BS" --topic orders \
  --reader-property parse.key=true --reader-property key.separator=: --command-property acks=all < "$DIR/sent"
tool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BS" --topic orders --from-beginning \
  --max-messages 1000 --timeout-ms 60000 --formatter-property print.key=true --formatter-property key.separator=: |
  grep '^k' > "$DIR/received"
# Order holds per partition, so per key: compare the values of each key in order.
for k in 0 1 2 3 4 5 6; do
  diff <(grep "^k$k:" "$DIR/sent") <(grep "^k$k:" "$DIR/received") > /dev/null || fail "key k$k differs"
done
[[ $(wc -l < "$DIR/received") == 1000 ]] || fail "$(wc -l < "$DIR/received") records consumed"

# kafka-get-offsets: the log end offsets add up to what was produced.
total=$(tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BS" --topic orders --time -1 |
  awk -F: '{s += $3} END {print s}')
[[ "$total" == 1000 ]] || fail "log end offsets add up to $total"

topics --delete --topic orders
for _ in $(seq 100); do [[ -z $(topics --list --exclude-internal) ]] && break; sleep 0.1; done
[[ -z $(topics --list --exclude-internal) ]] || fail "delete: $(topics --list --exclude-internal)"

if (( failures > 0 )); then exit 1; fi
echo "Kafka tools test passed"
