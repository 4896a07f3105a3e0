#!/usr/bin/env bash
# Compatibility: auto.create.topics.enable with a real client. kcat (librdkafka) produces
# to a topic that does not exist: its Metadata request (allow_auto_topic_creation=true,
# a producer's default) makes the broker create it with the cluster's num.partitions and
# default.replication.factor, answering LEADER_NOT_AVAILABLE meanwhile, and every record
# is delivered and read back. A consumer's Metadata (allow_auto_topic_creation=false, a
# consumer's default) creates nothing, nor do internal or invalid names. With the setting
# off (the default), kcat_metadata_test.sh sees an unknown topic stay unknown.
# Usage: kcat_auto_create_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
command -v kcat >/dev/null || { echo "kcat is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
S="$STRATA_BIN_DIR/strata"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-auto-create-test.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 --override auto.create.topics.enable=true \
  --override num.partitions=3 --override default.replication.factor=3 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")

echo "== a producer to a topic that does not exist creates it"
seq 1 20 | sed 's/^/record-/' | timeout 60 kcat -P -b "$BS" -t auto-made -X topic.request.required.acks=-1 \
  -X message.timeout.ms=30000 || fail "kcat could not produce to auto-made"
described=$("$S" topics describe auto-made --output json 2>&1) || fail "auto-made was not created: $described"
partitions=$(jq '.[0].partitions | length' <<<"$described" 2>/dev/null || echo "?")
[[ $partitions == 3 ]] || fail "auto-made has $partitions partitions, not num.partitions=3: $described"
rf=$(jq '[.[0].partitions[].replicas | length] | min' <<<"$described" 2>/dev/null || echo "?")
[[ $rf == 3 ]] || fail "auto-made has replication factor $rf, not default.replication.factor=3"
read_back=$(timeout 60 kcat -C -b "$BS" -t auto-made -o beginning -e -q | sort -t- -k2 -n | tr '\n' ' ')
expected=$(seq 1 20 | sed 's/^/record-/' | tr '\n' ' ')
[[ $read_back == "$expected" ]] || fail "read back '$read_back', expected '$expected'"

echo "== Metadata v4 with allow_auto_topic_creation=false creates nothing; with true it creates"
# metadata_error <topic> <allow 0|1>: the topic's error code in a raw Metadata v4 answer.
metadata_error() {
  /usr/bin/python3 - "$BS" "$1" "$2" "$(dirname "$0")/../cluster" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[4])
from kafka_probe import connect_when_listening, kafka_call, string
bootstrap, topic, allow = sys.argv[1].split(",")[0], sys.argv[2], int(sys.argv[3])
sock = connect_when_listening(bootstrap, 10)
body = kafka_call(sock, 3, 4, 1, struct.pack(">i", 1) + string(topic) + struct.pack(">b", allow))
at = 4  # throttle_time_ms
def skip_string(at, nullable=False):
    n = struct.unpack(">h", body[at:at + 2])[0]
    return at + 2 + max(n, 0)
brokers = struct.unpack(">i", body[at:at + 4])[0]; at += 4
for _ in range(brokers):
    at = skip_string(at + 4) + 4  # node_id, host, port
    at = skip_string(at, True)    # rack
at = skip_string(at, True) + 4   # cluster_id, controller_id
at += 4                          # topics count
print(struct.unpack(">h", body[at:at + 2])[0])
PY
}
code=$(metadata_error consumer-only 0)
[[ $code == 3 ]] || fail "Metadata(allow=false) of consumer-only answered $code, not UNKNOWN_TOPIC_OR_PARTITION (3)"
code=$(metadata_error __made_up 1)
[[ $code == 3 ]] || fail "Metadata(allow=true) of the internal-looking __made_up answered $code, not 3"
code=$(metadata_error barrier-made 1)
[[ $code == 5 ]] || fail "Metadata(allow=true) of barrier-made answered $code, not LEADER_NOT_AVAILABLE (5)"
# Creations run in the order asked: once barrier-made exists, consumer-only would too.
for _ in $(seq 300); do
  "$S" topics list 2>/dev/null | awk '{print $1}' | grep -qx barrier-made && break
  sleep 0.1
done
topics=$("$S" topics list 2>&1 | awk 'NR > 1 {print $1}')
grep -qx barrier-made <<<"$topics" || fail "barrier-made was not created: $topics"
for name in consumer-only __made_up; do
  grep -qxF -- "$name" <<<"$topics" && fail "$name was created: $topics"
done

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "auto.create.topics.enable checks passed"
