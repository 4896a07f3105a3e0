#!/usr/bin/env bash
# Transactions and exactly-once against a Strata cluster of one controller and three
# brokers (topics at RF 3, min.insync.replicas=2), with the Java client, Kafka's own tools
# and the current librdkafka:
#   TransactionsTest basic  commit, abort, the LSO, fencing, an invalid timeout, and the
#                           AdminClient's transaction calls (java/TransactionsTest.java);
#   kafka-transactions.sh   list, describe, describe-producers and find-hanging;
#   strata transactions     list and describe;
#   confluent-kafka         transactions_test.py (commit, abort, send_offsets_to_transaction,
#                           fencing, an invalid timeout, an abort after a failed send);
#   exactly-once under kill -9
#                           TransactionsTest copy (a consume-transform-produce loop with
#                           sendOffsetsToTransaction) copies 6 partitions while the
#                           transaction coordinator's broker and partition leaders are
#                           killed with -9 and restarted, again and again; then Kafka's
#                           TransactionalMessageCopier (random aborts) copies one partition
#                           across another kill. Read read_committed, each output holds its
#                           input exactly once, in order; committed offsets are the inputs' ends.
# Usage: transactions_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/peers_lib.sh"
KAFKA_LIBS=$(peer KAFKA_LIBS)
PY=$(peer CONFLUENT_KAFKA_PYTHON)
run() { timeout 400 java -cp "$DIR/classes:$KAFKA_LIBS/*" "$@" 2> >(grep -v '^SLF4J' >&2); }
transactions_tool() { kafka_tool org.apache.kafka.tools.TransactionsCommand --bootstrap-server "$BS" "$@"; }

# Timed-out transactions are looked for every second (Kafka's default: 10 s).
start_cluster transactions-test --controllers 1 --brokers 3 --override group.initial.rebalance.delay.ms=0 \
  --override transaction.abort.timed.out.transaction.cleanup.interval.ms=1000
javac -Xlint:-options -nowarn -d "$DIR/classes" -cp "$KAFKA_LIBS/*" "$HERE"/java/*.java 2>&1 |
  grep -v '^Note:' >&2 || true
[[ -f $DIR/classes/TransactionsTest.class ]] || { echo "javac failed" >&2; exit 1; }

run TransactionsTest basic "$BS" || fail "TransactionsTest basic"

# Kafka's kafka-transactions.sh.
transactions_tool list > "$DIR/list" || fail "kafka-transactions list"
grep -q '^basic-1 ' "$DIR/list" || fail "kafka-transactions list does not name basic-1: $(cat "$DIR/list")"
transactions_tool describe --transactional-id basic-1 > "$DIR/describe" || fail "kafka-transactions describe"
grep -q 'CompleteCommit' "$DIR/describe" || fail "kafka-transactions describe: $(cat "$DIR/describe")"
transactions_tool describe-producers --topic txn-basic --partition 0 > "$DIR/producers" ||
  fail "kafka-transactions describe-producers"
[[ $(wc -l < "$DIR/producers") -ge 2 ]] || fail "describe-producers lists no producer: $(cat "$DIR/producers")"
transactions_tool find-hanging --broker-id 1 > "$DIR/hanging" || fail "kafka-transactions find-hanging"
[[ $(wc -l < "$DIR/hanging") -eq 1 ]] || fail "find-hanging found transactions: $(cat "$DIR/hanging")"

# strata transactions.
"$S" transactions list > "$DIR/strata-list" || fail "strata transactions list"
grep -q '^basic-1 .*CompleteCommit' "$DIR/strata-list" || fail "strata transactions list: $(cat "$DIR/strata-list")"
"$S" transactions describe basic-1 -o json | jq -e '.[0].state == "CompleteCommit" and .[0].producer_epoch >= 0' \
  > /dev/null || fail "strata transactions describe basic-1"
if "$S" transactions describe no-such-id 2> "$DIR/err"; then fail "describe of an unknown id succeeded"; fi
grep -q TRANSACTIONAL_ID_NOT_FOUND "$DIR/err" || fail "describe of an unknown id: $(cat "$DIR/err")"

# confluent-kafka (the current librdkafka).
"$S" topics create txn-py --partitions 3 --replication-factor 3 --config min.insync.replicas=2 > /dev/null
"$S" topics create txn-py-out --partitions 3 --replication-factor 3 --config min.insync.replicas=2 > /dev/null
timeout 240 "$PY" "$HERE/transactions_test.py" "$BS" || fail "transactions_test.py"

# The coordinator of transactional id $1 (its broker id). The strata CLI answers in
# milliseconds, so the kills below keep pace with the copy.
coordinator() { "$S" transactions describe "$1" -o json 2> /dev/null | jq -r '.[0].coordinator // empty'; }
# The input records group $1 has committed (the sum of its committed offsets): grows with
# every committed transaction.
committed() {
  "$S" groups describe "$1" -o json 2> /dev/null |
    jq '[.. | objects | select(has("current_offset")) | .current_offset // 0] | add // 0'
}
# Waits (up to 120 s) until group $1 has committed $2 more input records, while $3 runs.
# Right after a kill the group's coordinator may be gone and the CLI fail: that answer is
# no figure and is asked again (under `set -e` a failed substitution would end the test
# without a word).
progress() {
  local start="" now deadline=$((SECONDS + 120))
  while ((SECONDS < deadline)); do
    kill -0 "$3" 2> /dev/null || return 0
    if now=$(committed "$1") && [[ -n $now ]]; then
      [[ -n $start ]] || start=$now
      ((now >= start + $2)) && return 0
    fi
    sleep 0.2
  done
  fail "no progress of $1"
}

# Exactly-once under kill -9: 60000 records in 6 partitions copied while brokers die.
"$S" topics create eos-in --partitions 6 --replication-factor 3 --config min.insync.replicas=2 > /dev/null
"$S" topics create eos-out --partitions 6 --replication-factor 3 --config min.insync.replicas=2 > /dev/null
run TransactionsTest fill "$BS" eos-in 60000 > /dev/null || fail "TransactionsTest fill"
run TransactionsTest copy "$BS" eos-in eos-out eos-group eos-copier > "$DIR/copy.out" &
copier=$!
BACKGROUND+=("$copier")
progress eos-group 2000 "$copier"
killed_coordinator=0
for round in 1 2 3 4 5 6; do
  kill -0 "$copier" 2> /dev/null || break
  coordinator=$(coordinator eos-copier) || coordinator=""
  if ((round % 2 == 1)) && [[ -n $coordinator ]]; then
    victim=$coordinator  # the transaction coordinator's broker
    killed_coordinator=$((killed_coordinator + 1))
  else
    victim=$(((round % 3) + 2))  # a broker (ids 2-4; 1 is the controller), leading some partitions
  fi
  echo "round $round: killing broker $victim (the coordinator of eos-copier is ${coordinator:-unknown})"
  "$CLUSTER" kill --dir "$DIR" "$victim"
  progress eos-group 2000 "$copier"
  "$CLUSTER" start --dir "$DIR" "$victim" > /dev/null
  progress eos-group 2000 "$copier"
done
wait "$copier" || fail "TransactionsTest copy"
cat "$DIR/copy.out"
((killed_coordinator >= 2)) || fail "the coordinator was killed $killed_coordinator times"
run TransactionsTest verify "$BS" eos-in eos-out eos-group || fail "TransactionsTest verify"

# Kafka's TransactionalMessageCopier (the tool of Kafka's exactly-once system tests), with
# random aborts, across a kill -9 of partition 0's leader.
"$S" topics create copier-out --partitions 1 --replication-factor 3 --config min.insync.replicas=2 > /dev/null
kafka_tool org.apache.kafka.tools.TransactionalMessageCopier --broker-list "$BS" --transactional-id copier-0 \
  --consumer-group copier-group --input-topic eos-in --input-partition 0 --output-topic copier-out \
  --max-messages -1 --transaction-size 100 --enable-random-aborts --use-group-metadata > "$DIR/copier.out" &
tool=$!
BACKGROUND+=("$tool")
progress copier-group 1000 "$tool"
leader=$("$S" topics describe eos-in -o json | jq -r '.[0].partitions[] | select(.partition == 0) | .leader')
echo "killing broker $leader (eos-in partition 0's leader) under TransactionalMessageCopier"
"$CLUSTER" kill --dir "$DIR" "$leader"
progress copier-group 1000 "$tool"
"$CLUSTER" start --dir "$DIR" "$leader" > /dev/null
wait "$tool" || fail "TransactionalMessageCopier"
tail -n 1 "$DIR/copier.out"
run TransactionsTest verify-partition "$BS" eos-in 0 copier-out copier-group || fail "TransactionsTest verify-partition"

finish "transactions test"
