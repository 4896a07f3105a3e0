#!/usr/bin/env bash
# Compatibility: a real Kafka client (kcat, on Debian's librdkafka) lists a Strata
# cluster. It negotiates versions with ApiVersions and reads Metadata: the brokers, the
# topics and their partitions with the same leaders and replicas the controller
# reports, and an unknown topic's error (producing and consuming:
# kcat_produce_consume_test.sh). Usage: kcat_metadata_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
command -v kcat >/dev/null || { echo "kcat is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
S="$STRATA_BIN_DIR/strata"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-kcat-test.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
"$S" topics create orders --partitions 6 --replication-factor 3 >/dev/null
"$S" topics create events --partitions 2 --replication-factor 1 >/dev/null

# Brokers learn new topics from the metadata log a moment after the controller answers.
for _ in $(seq 100); do
  listing=$(timeout 30 kcat -L -J -b "$BS")
  [[ $(jq -c '[.topics[].topic] | sort' <<<"$listing") == '["events","orders"]' ]] && break
  sleep 0.1
done
[[ $(jq -c '[.brokers[].id] | sort' <<<"$listing") == "[2,3,4]" ]] || fail "brokers: $(jq -c .brokers <<<"$listing")"
[[ $(jq -c '[.topics[].topic] | sort' <<<"$listing") == '["events","orders"]' ]] || fail "topics: $(jq -c '[.topics[].topic]' <<<"$listing")"
# Leaders, replicas and ISRs as the controller has them.
want=$("$S" topics describe orders -o json | jq -c '[.[0].partitions[] | {p: .partition, l: .leader, r: .replicas, i: .isr}]')
got=$(jq -c '[.topics[] | select(.topic == "orders") | .partitions[] | {p: .partition, l: .leader, r: [.replicas[].id], i: [.isrs[].id]}]' <<<"$listing")
[[ "$got" == "$want" ]] || fail "orders as kcat sees it: $got; the controller: $want"
# Every broker answers, and an unknown topic gets its error.
for b in ${BS//,/ }; do
  timeout 30 kcat -L -J -b "$b" -t orders | jq -e '.topics[0].partitions | length == 6' >/dev/null || fail "broker $b"
done
err=$(timeout 30 kcat -L -J -b "$BS" -t nope | jq -r '.topics[0].error')
[[ "$err" == *"Unknown topic or partition"* ]] || fail "unknown topic gave '$err'"

if (( failures > 0 )); then exit 1; fi
echo "kcat metadata test passed"
