#!/usr/bin/env bash
# Compatibility: Kafka's own command-line tools (Apache Kafka's jars from
# scripts/install-peers.sh, run through their main classes on Debian's JDK) against a
# Strata cluster of one controller and three brokers: kafka-broker-api-versions;
# kafka-features describe (transaction.version finalized at 2), upgrade --dry-run,
# downgrade and upgrade back (seen by the brokers' ApiVersions), an unknown feature and
# metadata.version and kraft.version=2 refused naming them;
# kafka-topics create, list, describe (leaders, replicas and ISRs as the controller has
# them), alter partitions and delete; kafka-console-producer and kafka-console-consumer
# (1,000 keyed records back in order, byte for byte); kafka-get-offsets;
# kafka-consumer-groups (list, describe, reset-offsets, delete) on the group of a console
# consumer; kafka-delete-records (the low watermark, and past the end refused);
# kafka-log-dirs --describe (each replica in a dir of its broker, with its size);
# kafka-configs --describe of a topic and a broker, and --alter of a topic
# (add, list value, delete, a bad value refused) and of the brokers' cluster-wide default
# (log.segment.bytes, described on a topic and applied to its log; log.cleaner.threads,
# cluster-wide and one broker's, applied to the cleaners); kafka-leader-election
# bringing a partition's leadership back to its preferred replica after a kill -9;
# kafka-reassign-partitions --generate, --execute, --verify, --list and --cancel (--throttle),
# and with log_dirs: a replica moved to its broker's other log dir (two per broker);
# kafka-cluster unregister of a broker killed and fenced (gone from the brokers, back
# once restarted), and of an unknown id (BROKER_ID_NOT_REGISTERED); last, kafka-features
# upgrade --feature kraft.version=1: the static quorum becomes a dynamic one (its voter
# keyed by its directory id in kafka-metadata-quorum describe --status).
# Usage: kafka_tools_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
source "$(dirname "$0")/peers_lib.sh"
tool() { kafka_tool "$@"; }

start_cluster kafka-tools-test --controllers 1 --brokers 3 --log-dirs 2 --override group.initial.rebalance.delay.ms=0

# kafka-broker-api-versions: every broker, with Produce and Fetch usable.
versions=$(tool org.apache.kafka.tools.BrokerApiVersionsCommand --bootstrap-server "$BS")
[[ $(grep -c '(id: [0-9]* rack' <<<"$versions") == 3 ]] || fail "api versions of $(grep -c '(id:' <<<"$versions") brokers"
grep -q 'Produce(0): [0-9]* to [0-9]* \[usable: [0-9]*\]' <<<"$versions" || fail "Produce not usable: $versions"
grep -q 'Fetch(1): [0-9]* to [0-9]* \[usable: [0-9]*\]' <<<"$versions" || fail "Fetch not usable"

# kafka-features describe: the supported range and the finalized level (KIP-584).
features=$(tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "$BS" describe)
grep -Eq 'Feature: transaction.version\s+SupportedMinVersion: 0\s+SupportedMaxVersion: 2\s+FinalizedVersionLevel: 2' \
  <<<"$features" || fail "kafka-features describe: $features"
# kafka-features upgrade / downgrade (UpdateFeatures, forwarded to the active controller).
kafka_features() { tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "$BS" "$@"; }
finalized_tv() {  # as the broker the tool asks sees it
  kafka_features describe | sed -n 's/.*Feature: transaction.version .*FinalizedVersionLevel: \([0-9]*\).*/\1/p'
}
wait_finalized_tv() {
  local tv
  for _ in $(seq 30); do tv=$(finalized_tv) || true; [[ $tv == "$1" ]] && return 0; sleep 0.2; done
  fail "transaction.version finalized at '$tv', not $1"
}
out=$(kafka_features upgrade --feature transaction.version=2 --dry-run) || true
grep -q 'transaction.version can be upgraded to 2' <<<"$out" || fail "kafka-features upgrade --dry-run: $out"
for refused in no.such.version=1 metadata.version=21 kraft.version=2; do
  if out=$(kafka_features upgrade --feature "$refused" 2>&1); then fail "kafka-features accepted $refused: $out"; fi
  grep -q "Could not upgrade ${refused%=*} to ${refused#*=}\. .*${refused%=*}" <<<"$out" ||
    fail "the refusal of $refused does not name it: $out"
  case $refused in
    metadata.*) grep -q 'Strata has no metadata.version' <<<"$out" || fail "no reason for refusing $refused: $out" ;;
    kraft.*) grep -q 'supports levels 0-1' <<<"$out" || fail "no reason for refusing $refused: $out" ;;
  esac
done
out=$(kafka_features downgrade --feature transaction.version=1) || true
grep -q 'transaction.version was downgraded to 1' <<<"$out" || fail "kafka-features downgrade: $out"
wait_finalized_tv 1
out=$(kafka_features upgrade --feature transaction.version=2) || true
grep -q 'transaction.version was upgraded to 2' <<<"$out" || fail "kafka-features upgrade: $out"
wait_finalized_tv 2
[[ $("$S" features describe -o json | jq -r '.[] | select(.feature == "transaction.version") | "\(.finalized_level) \(.set_by_operator)"') == "2 true" ]] ||
  fail "strata features describe after the upgrade: $("$S" features describe)"

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

# kafka-consumer-groups on the group a console consumer committed.
groups() { tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BS" "$@"; }
committed() {  # the sum of the group's committed offsets
  groups --describe --group readers | awk '$1 == "readers" && $2 == "orders" {s += $4} END {print s + 0}'
}
tool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BS" --topic orders --group readers \
  --from-beginning --max-messages 1000 --timeout-ms 60000 > /dev/null
# (The console consumer above, with no --group, left an empty group of its own.)
groups --list | grep -qx readers || fail "consumer-groups --list: $(groups --list)"
[[ $(committed) == 1000 ]] || fail "consumer-groups --describe: committed $(committed) of 1000"
groups --reset-offsets --group readers --topic orders --to-earliest --execute > /dev/null
[[ $(committed) == 0 ]] || fail "consumer-groups --reset-offsets --to-earliest: committed $(committed)"
groups --reset-offsets --group readers --topic orders:1 --to-offset 5 --execute > /dev/null
[[ $(committed) == 5 ]] || fail "consumer-groups --reset-offsets --to-offset 5 on one partition: committed $(committed)"
groups --delete --group readers | grep -q "Deletion of requested consumer groups ('readers') was successful" ||
  fail "consumer-groups --delete"
! groups --list | grep -qx readers || fail "consumer-groups --list after --delete: $(groups --list)"

# kafka-delete-records: the low watermark of orders-0 moves to 10, and the earliest
# offset with it; an offset past the high watermark is refused.
earliest0() { tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BS" --topic orders --partitions 0 --time -2 |
  awk -F: '{print $3}'; }
echo '{"version":1,"partitions":[{"topic":"orders","partition":0,"offset":10}]}' > "$DIR/delete.json"
deleted=$(tool org.apache.kafka.tools.DeleteRecordsCommand --bootstrap-server "$BS" --offset-json-file "$DIR/delete.json")
grep -q $'partition: orders-0\tlow_watermark: 10' <<<"$deleted" || fail "kafka-delete-records: $deleted"
[[ $(earliest0) == 10 ]] || fail "earliest offset of orders-0 after kafka-delete-records: $(earliest0)"
echo '{"version":1,"partitions":[{"topic":"orders","partition":0,"offset":100000}]}' > "$DIR/delete.json"
deleted=$(tool org.apache.kafka.tools.DeleteRecordsCommand --bootstrap-server "$BS" --offset-json-file "$DIR/delete.json")
grep -q $'partition: orders-0\terror: .*OffsetOutOfRange' <<<"$deleted" || fail "kafka-delete-records past the end: $deleted"
[[ $(earliest0) == 10 ]] || fail "earliest offset of orders-0 after a refused kafka-delete-records: $(earliest0)"

# kafka-log-dirs --describe: each replica of orders-0 in one log dir of its broker, with
# its size; brokers that hold none list none.
logdirs=$(tool org.apache.kafka.tools.LogDirsCommand --bootstrap-server "$BS" --describe --topic-list orders | grep '^{')
want=$("$S" topics describe orders -o json | jq -c '[.[0].partitions[] | select(.partition == 0) | .replicas[]] | sort')
got=$(jq -c '[.brokers[] | select(any(.logDirs[].partitions[]; .partition == "orders-0")) | .broker] | sort' <<<"$logdirs")
[[ "$got" == "$want" ]] || fail "kafka-log-dirs: orders-0 on brokers $got, replicas $want: $logdirs"
jq -e '[.brokers[].logDirs[] | select(.error != null)] | length == 0' <<<"$logdirs" > /dev/null ||
  fail "kafka-log-dirs: a dir with an error: $logdirs"
jq -e '[.brokers[].logDirs[].partitions[] | select(.partition == "orders-0") | .size > 0] | all' <<<"$logdirs" > /dev/null ||
  fail "kafka-log-dirs: orders-0 without a size: $logdirs"

# kafka-configs --describe: the topic's own settings, and a broker's.
"$S" topics create configured --partitions 1 --replication-factor 3 --config retention.ms=3600000 > /dev/null
tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$BS" --describe --entity-type topics \
  --entity-name configured | grep -q 'retention.ms=3600000 .*DYNAMIC_TOPIC_CONFIG:retention.ms=3600000' ||
  fail "kafka-configs --describe of a topic"
tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$BS" --describe --entity-type brokers \
  --entity-name 3 --all | grep -q '^  node.id=3 ' || fail "kafka-configs --describe --all of broker 3"
# kafka-configs --alter (IncrementalAlterConfigs): add, append to a list, delete; a bad
# value refused with the setting named, nothing changed.
configs() { tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$BS" "$@"; }
configs --alter --entity-type topics --entity-name configured --add-config 'retention.ms=7200000,cleanup.policy=[delete,compact]' \
  > /dev/null || fail "kafka-configs --alter --add-config"
configs --alter --entity-type topics --entity-name configured --delete-config retention.ms > /dev/null ||
  fail "kafka-configs --alter --delete-config"
described=$(configs --describe --entity-type topics --entity-name configured)
grep -q 'cleanup.policy=delete,compact ' <<<"$described" || fail "kafka-configs --alter: $described"
! grep -q 'retention.ms=' <<<"$described" || fail "kafka-configs --delete-config left retention.ms: $described"
if configs --alter --entity-type topics --entity-name configured --add-config segment.bytes=12 2> "$DIR/err"; then
  fail "kafka-configs accepted segment.bytes=12"
fi
grep -q 'segment.bytes' "$DIR/err" || fail "kafka-configs' refusal does not name the setting: $(cat "$DIR/err")"

# kafka-configs --entity-default on brokers (the cluster-wide dynamic default): a log
# default that every topic without its own setting takes at once, described with its
# source and applied (3 MiB into a topic created before it make 1 MiB segments on each
# replica); a bad value refused naming the setting; deleted, the static default again.
"$S" topics create rolled --partitions 1 --replication-factor 3 > /dev/null
configs --alter --entity-type brokers --entity-default --add-config log.segment.bytes=1048576 > /dev/null ||
  fail "kafka-configs --alter --entity-default"
configs --describe --entity-type topics --entity-name rolled --all |
  grep -q '^  segment.bytes=1048576 .*DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=1048576' ||
  fail "kafka-configs --describe --all of a topic: $(configs --describe --entity-type topics --entity-name rolled --all)"
tool org.apache.kafka.tools.ProducerPerformance --topic rolled --num-records 3000 --record-size 1024 --throughput -1 \
  --command-property bootstrap.servers="$BS" acks=all > /dev/null
segments=$(for d in "$DIR"/*/logs-*/rolled-0; do find "$d" -name '*.log' | wc -l; done | sort -n | tr '\n' ' ')
[[ $(wc -w <<<"$segments") == 3 && ${segments%% *} -ge 3 ]] ||
  fail "rolled-0 under log.segment.bytes=1048576: segments per replica $segments"
if configs --alter --entity-type brokers --entity-default --add-config log.segment.bytes=12 2> "$DIR/err"; then
  fail "kafka-configs accepted log.segment.bytes=12 as a cluster default"
fi
grep -q 'log.segment.bytes' "$DIR/err" || fail "kafka-configs' refusal does not name log.segment.bytes: $(cat "$DIR/err")"
configs --alter --entity-type brokers --entity-default --delete-config log.segment.bytes > /dev/null
configs --describe --entity-type topics --entity-name rolled --all | grep -q '^  segment.bytes=1073741824 .*DEFAULT_CONFIG' ||
  fail "segment.bytes after the cluster default was deleted"
"$S" topics delete rolled > /dev/null

# A dynamic log.cleaner.threads restarts the brokers' cleaners with that many threads
# (strata_log_cleaner_threads): the cluster-wide default on every broker, a broker's own
# above it; out of range refused; deleted, the static setting again (1).
cleaner_threads() {
  local port
  port=$(sed -n 's/^metrics.listener=.*://p' "$DIR/node-$1/server.properties")
  curl -s "http://127.0.0.1:$port/metrics" | sed -n 's/^strata_log_cleaner_threads //p'
}
wait_cleaner_threads() {  # broker, threads
  for _ in $(seq 100); do [[ $(cleaner_threads "$1") == "$2" ]] && return 0; sleep 0.1; done
  fail "broker $1 runs $(cleaner_threads "$1") cleaner threads, not $2"
}
configs --alter --entity-type brokers --entity-default --add-config log.cleaner.threads=3 > /dev/null ||
  fail "kafka-configs --alter --entity-default log.cleaner.threads"
configs --alter --entity-type brokers --entity-name 3 --add-config log.cleaner.threads=2 > /dev/null ||
  fail "kafka-configs --alter --entity-name 3 log.cleaner.threads"
wait_cleaner_threads 2 3
wait_cleaner_threads 3 2
wait_cleaner_threads 4 3
if configs --alter --entity-type brokers --entity-default --add-config log.cleaner.threads=65 2> "$DIR/err"; then
  fail "kafka-configs accepted log.cleaner.threads=65"
fi
grep -q 'log.cleaner.threads' "$DIR/err" || fail "the refusal does not name log.cleaner.threads: $(cat "$DIR/err")"
configs --alter --entity-type brokers --entity-default --delete-config log.cleaner.threads > /dev/null
configs --alter --entity-type brokers --entity-name 3 --delete-config log.cleaner.threads > /dev/null
for id in 2 3 4; do wait_cleaner_threads "$id" 1; done

# kafka-leader-election: broker 2, the preferred replica, loses the lead to a kill -9,
# comes back into the ISR, and the tool gives the lead back to it.
"$S" topics create elect --replica-assignment 2:3:4 > /dev/null
describe_elect() { "$S" topics describe elect -o json | jq -r ".[0].partitions[0].$1 | tostring"; }
"$CLUSTER" kill --dir "$DIR" 2
for _ in $(seq 300); do [[ $(describe_elect leader) != 2 ]] && break; sleep 0.1; done
"$CLUSTER" start --dir "$DIR" 2 > /dev/null
for _ in $(seq 300); do [[ $(describe_elect isr) == *2* ]] && break; sleep 0.1; done
[[ $(describe_elect leader) != 2 && $(describe_elect isr) == *2* ]] ||
  fail "elect: leader $(describe_elect leader), ISR $(describe_elect isr) before the election"
tool org.apache.kafka.tools.LeaderElectionCommand --bootstrap-server "$BS" --election-type preferred \
  --topic elect --partition 0 | grep -q 'Successfully completed leader election (PREFERRED) for partitions elect-0' ||
  fail "kafka-leader-election --election-type preferred"
[[ $(describe_elect leader) == 2 ]] || fail "leader $(describe_elect leader) after the election, not 2"
tool org.apache.kafka.tools.LeaderElectionCommand --bootstrap-server "$BS" --election-type preferred \
  --topic elect --partition 0 | grep -q 'Valid replica already elected for partitions elect-0' ||
  fail "kafka-leader-election when no election is needed"
"$S" topics delete configured > /dev/null
"$S" topics delete elect > /dev/null

# kafka-reassign-partitions: --generate proposes the topic over the brokers given;
# --execute moves moving-0's first replica to the broker that did not hold it and
# --verify says it completed, the replicas being the plan's; --cancel of a reassignment
# held in progress by --throttle takes moving-1 back to its replicas before.
reassign() { tool org.apache.kafka.tools.reassign.ReassignPartitionsCommand "$@"; }
replicas_of() { "$S" topics describe moving -o json | jq -c ".[0].partitions[] | select(.partition == $1) | .replicas"; }
plan_for() { echo "{\"version\":1,\"partitions\":[{\"topic\":\"moving\",\"partition\":$1,\"replicas\":$2}]}"; }
"$S" topics create moving --partitions 2 --replication-factor 2 > /dev/null
echo '{"version":1,"topics":[{"topic":"moving"}]}' > "$DIR/moving-topics.json"
generated=$(reassign --bootstrap-server "$BS" --generate --topics-to-move-json-file "$DIR/moving-topics.json" \
  --broker-list 2,3,4)
jq -e '[.partitions[] | .topic == "moving" and (.replicas | length == 2 and all(.[]; . >= 2 and . <= 4))]
       | length == 2 and all' <<<"$(sed -n '/Proposed partition reassignment configuration/{n;p}' <<<"$generated")" \
  > /dev/null || fail "kafka-reassign-partitions --generate: $generated"
before=$(replicas_of 0)
target=$(jq -c '[([2, 3, 4] - .)[0], .[1]]' <<<"$before")
plan_for 0 "$target" > "$DIR/move.json"
reassign --bootstrap-server "$BS" --execute --reassignment-json-file "$DIR/move.json" |
  grep -q 'Successfully started partition reassignment for moving-0' || fail "kafka-reassign-partitions --execute"
for _ in $(seq 60); do
  verified=$(reassign --bootstrap-server "$BS" --verify --reassignment-json-file "$DIR/move.json" || true)
  grep -q 'Reassignment of partition moving-0 is completed' <<<"$verified" && break
  sleep 0.2
done
grep -q 'Reassignment of partition moving-0 is completed' <<<"$verified" || fail "kafka-reassign-partitions --verify: $verified"
[[ $(replicas_of 0) == "$target" ]] || fail "moving-0 on $(replicas_of 0) after the reassignment, not $target"
# kafka-reassign-partitions with log_dirs (AlterReplicaLogDirs): moving-0's first replica
# goes to the other log dir of its broker, with 2 MiB in it; --verify says when it is
# there, and it is: in that dir, and no other.
"$STRATA_BIN_DIR/strata-perf" produce --bootstrap-server "$BS" --topic moving --partitions 1 --num-records 2048 \
  --record-size 1024 --acks -1 > /dev/null
first=$(jq -r '.[0]' <<<"$target")
here=$(dirname "$(ls -d "$DIR/node-$first"/logs-*/moving-0)")
there=$(ls -d "$DIR/node-$first"/logs-* | grep -vxF "$here")
jq -nc --argjson r "$target" --arg d "$there" \
  '{version: 1, partitions: [{topic: "moving", partition: 0, replicas: $r, log_dirs: [$d, "any"]}]}' > "$DIR/dirs.json"
executed=$(reassign --bootstrap-server "$BS" --execute --reassignment-json-file "$DIR/dirs.json")
grep -q "Successfully started moving log directory to $there for replica moving-0 with broker $first" <<<"$executed" ||
  fail "kafka-reassign-partitions --execute with log_dirs: $executed"
for _ in $(seq 150); do
  verified=$(reassign --bootstrap-server "$BS" --verify --reassignment-json-file "$DIR/dirs.json" || true)
  grep -q "Reassignment of replica .*moving.*0.*$first.* completed" <<<"$verified" && break
  sleep 0.2
done
grep -q "Reassignment of replica .*moving.*0.*$first.* completed" <<<"$verified" ||
  fail "kafka-reassign-partitions --verify with log_dirs: $verified"
[[ -d $there/moving-0 && ! -e $here/moving-0 ]] || fail "moving-0 of broker $first: $(ls "$here" "$there")"
# The held one: moving-1 with 3 MiB, moved with --throttle 1 (one byte per second: the
# new replica gets its first fetch, then nothing), so it stays in progress until
# --cancel (which also removes the throttle).
"$STRATA_BIN_DIR/strata-perf" produce --bootstrap-server "$BS" --topic moving --partitions 1 --num-records 3072 \
  --record-size 1024 --acks -1 > /dev/null
before=$(replicas_of 1)
plan_for 1 "[$(jq -r '([2, 3, 4] - .)[0]' <<<"$before"),$(jq -r '.[0]' <<<"$before")]" > "$DIR/held.json"
reassign --bootstrap-server "$BS" --execute --throttle 1 --reassignment-json-file "$DIR/held.json" |
  grep -q 'Successfully started partition reassignment for moving-1' || fail "kafka-reassign-partitions --execute (held)"
configs --describe --entity-type topics --entity-name moving | grep -q 'follower.replication.throttled.replicas=1:' ||
  fail "the throttled replicas of moving: $(configs --describe --entity-type topics --entity-name moving)"
reassign --bootstrap-server "$BS" --list | grep -q "moving-1: replicas: .*adding: " ||
  fail "kafka-reassign-partitions --list: $(reassign --bootstrap-server "$BS" --list)"
reassign --bootstrap-server "$BS" --cancel --reassignment-json-file "$DIR/held.json" |
  grep -q 'Successfully cancelled partition reassignment for: moving-1' || fail "kafka-reassign-partitions --cancel"
[[ $(replicas_of 1) == "$before" ]] || fail "moving-1 on $(replicas_of 1) after the cancel, not $before"
! configs --describe --entity-type topics --entity-name moving | grep -q 'throttled.replicas' ||
  fail "the throttle stayed after the cancel: $(configs --describe --entity-type topics --entity-name moving)"
"$S" topics delete moving > /dev/null

# kafka-cluster unregister (UnregisterBroker): broker 4, killed and fenced, is no longer
# among the cluster's brokers; an unknown id is refused; broker 4 started again registers
# again.
broker_state() {  # fenced, unfenced, or nothing when not registered
  "$S" cluster describe -o json | jq -r ".brokers[] | select(.id == $1) | if .fenced then \"fenced\" else \"unfenced\" end"
}
wait_broker_state() {
  for _ in $(seq 300); do [[ $(broker_state "$1") == "$2" ]] && return 0; sleep 0.1; done
  fail "broker $1 is '$(broker_state "$1")', not $2"
}
"$CLUSTER" kill --dir "$DIR" 4
wait_broker_state 4 fenced
out=$(tool org.apache.kafka.tools.ClusterTool unregister --bootstrap-server "$BS" --id 4) || true
grep -q 'Broker 4 is no longer registered' <<<"$out" || fail "kafka-cluster unregister --id 4: $out"
[[ -z $(broker_state 4) ]] || fail "broker 4 is still listed after kafka-cluster unregister: $("$S" cluster describe)"
if out=$(tool org.apache.kafka.tools.ClusterTool unregister --bootstrap-server "$BS" --id 99 2>&1); then
  fail "kafka-cluster unregister --id 99 accepted: $out"
fi
grep -q 'BrokerIdNotRegistered' <<<"$out" || fail "kafka-cluster unregister --id 99: $out"
"$CLUSTER" start --dir "$DIR" 4 > /dev/null
wait_broker_state 4 unfenced

topics --delete --topic orders
for _ in $(seq 100); do [[ -z $(topics --list --exclude-internal) ]] && break; sleep 0.1; done
[[ -z $(topics --list --exclude-internal) ]] || fail "delete: $(topics --list --exclude-internal)"

# kafka-features upgrade --feature kraft.version=1: the static quorum (one controller)
# becomes a dynamic one (KIP-853, Kafka 4.1+), as the brokers' ApiVersions and
# kafka-metadata-quorum show it.
out=$(kafka_features upgrade --feature kraft.version=1) || true
grep -q 'kraft.version was upgraded to 1' <<<"$out" || fail "kafka-features upgrade kraft.version=1: $out"
finalized_kv() { kafka_features describe | sed -n 's/.*Feature: kraft.version .*FinalizedVersionLevel: \([0-9]*\).*/\1/p'; }
for _ in $(seq 50); do [[ $(finalized_kv) == 1 ]] && break; sleep 0.2; done
[[ $(finalized_kv) == 1 ]] || fail "kraft.version finalized at '$(finalized_kv)' after the upgrade"
dir=$(sed -n 's/^directory.id=//p' "$DIR/node-1/metadata/meta.properties")
status=$(tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-server "$BS" describe --status)
grep -q "{\"id\": 1, \"directoryId\": \"$dir\"" <<<"$status" || fail "the voter's directory id after the upgrade: $status"

finish "Kafka tools test"
