#!/usr/bin/env bash
# Integration test of `strata groups` (tools/cli/groups.cc) against real processes: a
# 1-controller 3-broker cluster (strata-cluster), a topic of 3 partitions with RF 3 and
# 10 records in each, and kcat (librdkafka) as the group's consumer. A consumer of group
# g1 reads all 30 and commits on exit: `list` shows g1 Empty, `describe` its offsets
# (30 in all), log end (30) and lag (0); 6 more records make a lag of 6. reset-offsets
# without --execute changes nothing; with it --to-earliest gives 0 (lag 36), --shift-by 5
# then 5 a partition, --to-offset 1000 the log end; --to-datetime picks the first or no
# record; --all-topics takes the partitions with offsets. While a consumer runs,
# `describe` names it as each partition's CONSUMER-ID, reset-offsets --execute is refused
# (the group has a member) and delete answers NON_EMPTY_GROUP; once it stops, delete
# succeeds and `list` no longer shows g1. Last, with a broker killed, `list` names it on
# stderr, exits 1 and still lists the others' groups.
# Usage: strata_groups_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
for tool in kcat jq; do
  command -v $tool >/dev/null || { echo "$tool is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
S="$STRATA_BIN_DIR/strata"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-groups-test.XXXXXX")
CONSUMER_PID=
cleanup() {
  if [[ -n $CONSUMER_PID ]]; then kill "$CONSUMER_PID" 2>/dev/null || true; wait "$CONSUMER_PID" 2>/dev/null || true; fi
  "$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 --override group.initial.rebalance.delay.ms=0 \
  --override offsets.topic.num.partitions=3 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
T=orders
"$S" topics create $T --partitions 3 --replication-factor 3 >/dev/null

# produce <count per partition>: that many records to each partition (acks=all).
produce() {
  for p in 0 1 2; do
    seq 1 "$1" | sed "s/^/p$p-record-/" | timeout 60 kcat -P -b "$BS" -t $T -p $p -X topic.request.required.acks=-1 \
      -X message.timeout.ms=30000 || fail "kcat could not produce $1 records to $T-$p"
  done
}
# groups <args...>: strata groups ..., stdout only; a non-zero exit is a failure naming it.
groups() {
  local out rc=0
  out=$("$S" groups "$@" 2>"$DIR/stderr") || rc=$?
  [[ $rc == 0 ]] || fail "strata groups $* exited $rc: $(cat "$DIR/stderr")"
  printf '%s\n' "$out"
}
describe() { groups describe g1 --output json; }
# offsets <describe json>: "partition=current_offset" for each partition, e.g. "0=10 1=10 2=10".
offsets() { jq -r '[.[0].partitions[] | "\(.partition)=\(.current_offset)"] | join(" ")' <<<"$1"; }
# total <describe json> <field>: the field summed over the partitions ("null" when one has none).
total() { jq -r --arg f "$2" '[.[0].partitions[][$f]] | if any(. == null) then "null" else add end' <<<"$1"; }
# expect_offsets <what> <want>: describe's current offsets must be <want> ("0=10 1=10 2=10").
expect_offsets() {
  local got
  got=$(offsets "$(describe)")
  [[ $got == "$2" ]] || fail "$1: committed offsets are '$got', expected '$2'"
}
# wait_until <seconds> <what> <command...>: polls the command until it succeeds; fails naming what never came.
wait_until() {
  local seconds=$1 what=$2
  local deadline=$((SECONDS + seconds))
  shift 2
  until "$@"; do
    if ((SECONDS >= deadline)); then fail "$what within ${seconds}s"; return 1; fi
    sleep 0.2
  done
}

echo "== a consumer of g1 reads 30 records and commits on exit"
produce 10
consumed=$(timeout 60 kcat -C -b "$BS" -G g1 -X auto.offset.reset=earliest -c 30 -q $T | wc -l)
[[ $consumed == 30 ]] || fail "kcat -G g1 consumed $consumed records, expected 30"

echo "== list shows g1 Empty, a classic group"
listed=$(groups list)
echo "$listed"
state=$(awk '$1 == "g1" {print $2, $3}' <<<"$listed")
[[ $state == "classic Empty" ]] || fail "groups list shows g1 as '$state', expected a classic group Empty: $listed"
state=$(groups list --output json | jq -r '.[] | select(.group == "g1") | "\(.state) \(.protocol_type)"')
[[ $state == "Empty consumer" ]] || fail "groups list --output json shows g1 as '$state', expected 'Empty consumer'"

echo "== --listener: the brokers' listener by name; one no broker has is an error naming it"
[[ $(groups list --listener PLAINTEXT --output json | jq -r '.[] | select(.group == "g1") | .state') == Empty ]] \
  || fail "groups list --listener PLAINTEXT does not show g1"
if out=$(STRATA_LISTENER=NOSUCH "$S" groups list 2>&1); then
  fail "groups list with STRATA_LISTENER=NOSUCH succeeded: $out"
fi
grep -q "no broker has a PLAINTEXT listener named NOSUCH" <<<"$out" || fail "STRATA_LISTENER=NOSUCH says: $out"

echo "== describe: offsets 30 in all, log end 30, lag 0"
d=$(describe)
groups describe g1
[[ $(jq -r '.[0].state' <<<"$d") == Empty ]] || fail "describe shows g1 $(jq -r '.[0].state' <<<"$d"), expected Empty"
[[ $(total "$d" current_offset) == 30 ]] || fail "current offsets sum to $(total "$d" current_offset), expected 30: $(offsets "$d")"
[[ $(total "$d" log_end_offset) == 30 ]] || fail "log end offsets sum to $(total "$d" log_end_offset), expected 30"
[[ $(total "$d" lag) == 0 ]] || fail "lag sums to $(total "$d" lag), expected 0"

echo "== 6 more records: lag 6"
produce 2
d=$(describe)
[[ $(total "$d" lag) == 6 ]] || fail "after 6 more records the lag sums to $(total "$d" lag), expected 6"
[[ $(total "$d" log_end_offset) == 36 ]] || fail "log end offsets sum to $(total "$d" log_end_offset), expected 36"

echo "== reset-offsets --to-earliest without --execute changes nothing"
dry=$(groups reset-offsets g1 --topic $T --to-earliest)
echo "$dry"
planned=$(awk '$1 == "g1" {printf "%s=%s ", $3, $4}' <<<"$dry")
[[ $planned == "0=0 1=0 2=0 " ]] || fail "the dry run planned '$planned', expected '0=0 1=0 2=0 '"
grep -q '^Dry run' <<<"$dry" || fail "the dry run did not say it was one: $dry"
[[ $(groups reset-offsets g1 --topic $T --to-earliest --output json | jq -r .dry_run) == true ]] \
  || fail "reset-offsets --output json without --execute does not say dry_run true"
expect_offsets "after a dry run" "0=10 1=10 2=10"

echo "== reset-offsets --to-earliest --execute: offsets 0, lag 36"
groups reset-offsets g1 --topic $T --to-earliest --execute >/dev/null
d=$(describe)
[[ $(offsets "$d") == "0=0 1=0 2=0" ]] || fail "after --to-earliest --execute the offsets are '$(offsets "$d")', expected 0 each"
[[ $(total "$d" lag) == 36 ]] || fail "after --to-earliest --execute the lag sums to $(total "$d" lag), expected 36"

echo "== --shift-by 5: 5 a partition; --shift-by -2 on partition 1 only: 3 there"
groups reset-offsets g1 --topic $T --shift-by 5 --execute >/dev/null
expect_offsets "after --shift-by 5" "0=5 1=5 2=5"
groups reset-offsets g1 --topic $T:1 --shift-by -2 --execute >/dev/null
expect_offsets "after --shift-by -2 of partition 1" "0=5 1=3 2=5"

echo "== --to-datetime (dry runs): before the first record 0, in the future the log end"
planned=$(groups reset-offsets g1 --topic $T --to-datetime 2000-01-01T00:00:00Z --output json | jq -c '[.partitions[].new_offset]')
[[ $planned == "[0,0,0]" ]] || fail "--to-datetime 2000-01-01T00:00:00Z planned $planned, expected [0,0,0]"
future=$(( $(date +%s) * 1000 + 3600000 ))
planned=$(groups reset-offsets g1 --topic $T --to-datetime $future --output json | jq -c '[.partitions[].new_offset]')
[[ $planned == "[12,12,12]" ]] || fail "--to-datetime $future (in an hour) planned $planned, expected the log ends [12,12,12]"

echo "== --to-offset 1000 clamps to the log end"
groups reset-offsets g1 --topic $T --to-offset 1000 --execute >/dev/null
expect_offsets "after --to-offset 1000" "0=12 1=12 2=12"
planned=$(groups reset-offsets g1 --all-topics --shift-by -2 --output json | jq -r '[.partitions[] | "\(.topic)-\(.partition)=\(.new_offset)"] | join(" ")')
[[ $planned == "$T-0=10 $T-1=10 $T-2=10" ]] || fail "--all-topics --shift-by -2 planned '$planned', expected 10 for each of $T's"

echo "== with a consumer running"
kcat -C -b "$BS" -G g1 -X auto.offset.reset=earliest -X session.timeout.ms=6000 -q $T >"$DIR/consumer.out" 2>&1 &
CONSUMER_PID=$!
stable_with_one_member() {
  [[ $("$S" groups describe g1 --output json 2>/dev/null | jq -r '.[0] | "\(.state) \(.member_count)"') == "Stable 1" ]]
}
wait_until 30 "g1 did not become Stable with one member" stable_with_one_member \
  || fail "g1 is still: $("$S" groups describe g1 2>&1 | head -1)"
d=$(describe)
groups describe g1
member=$(jq -r '.[0].members[0].consumer_id' <<<"$d")
owners=$(jq -r '[.[0].partitions[] | "\(.partition)=\(.consumer_id)"] | join(" ")' <<<"$d")
[[ $owners == "0=$member 1=$member 2=$member" ]] || fail "describe shows the partitions' consumers as '$owners', expected $member for each"
[[ $member == rdkafka-* ]] || fail "the member id '$member' is not librdkafka's"
groups describe g1 | grep "^g1 .* $member " >/dev/null || fail "the describe table does not name $member as CONSUMER-ID"
m=$(groups describe g1 --members --output json | jq -c '.[0].members[0] | [.partition_count, .assignment]')
[[ $m == "[3,[{\"partitions\":[0,1,2],\"topic\":\"$T\"}]]" ]] || fail "describe --members shows $m, expected 3 partitions $T 0,1,2"
groups describe g1 --members | grep "^g1 *$member .* 3 *$T(0,1,2)$" >/dev/null \
  || fail "the describe --members table does not show $member with $T(0,1,2): $(groups describe g1 --members)"

rc=0
"$S" groups reset-offsets g1 --topic $T --to-earliest --execute >"$DIR/reset.out" 2>"$DIR/reset.err" || rc=$?
[[ $rc == 1 ]] || fail "reset-offsets --execute of a group with a member exited $rc, expected 1"
grep -q "the group must be inactive (no members) to reset offsets" "$DIR/reset.err" \
  || fail "reset-offsets --execute of a group with a member said: $(cat "$DIR/reset.err")"
expect_offsets "after the refused reset" "0=12 1=12 2=12"

rc=0
deleted=$("$S" groups delete g1 --output json 2>/dev/null) || rc=$?
[[ $rc == 1 ]] || fail "groups delete of a group with a member exited $rc, expected 1"
[[ $(jq -r '.[0].error' <<<"$deleted") == NON_EMPTY_GROUP ]] || fail "groups delete of a group with a member answered $deleted"

echo "== once the consumer has stopped, delete succeeds and list no longer shows g1"
kill "$CONSUMER_PID"
wait "$CONSUMER_PID" || true
CONSUMER_PID=
empty() { [[ $("$S" groups describe g1 --output json 2>/dev/null | jq -r '.[0].state') == Empty ]]; }
wait_until 30 "g1 did not become Empty once its consumer stopped" empty
deleted=$(groups delete g1)
echo "$deleted"
[[ $(awk '$1 == "g1" {print $2}' <<<"$deleted") == ok ]] || fail "groups delete g1 answered: $deleted"
groups list | grep '^g1 ' >/dev/null && fail "groups list still shows g1 after its deletion: $(groups list)"
[[ $(jq -r '.[0].state' <<<"$(describe)") == Dead ]] || fail "describe of the deleted g1 is not Dead"

echo "== a broker that cannot be reached: list names it, exits 1 and lists the others' groups"
groups reset-offsets g2 --topic $T --to-latest --execute >/dev/null  # a group with offsets and no members
coordinator=$(groups list --output json | jq -r '.[] | select(.group == "g2") | .coordinator')
victim=$("$S" cluster describe --output json | jq -r --arg c "$coordinator" '[.brokers[].id | tostring | select(. != $c)][0]')
"$CLUSTER" kill --dir "$DIR" "$victim"
rc=0
listed=$("$S" groups list 2>"$DIR/list.err") || rc=$?
[[ $rc == 1 ]] || fail "groups list with broker $victim down exited $rc, expected 1"
grep -q "broker $victim " "$DIR/list.err" || fail "groups list with broker $victim down said on stderr: $(cat "$DIR/list.err")"
grep -q '^g2 ' <<<"$listed" || fail "groups list with broker $victim down does not list g2 (coordinator $coordinator): $listed"

if ((failures > 0)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "strata groups test passed"
