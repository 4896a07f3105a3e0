# What the compat tests that run the peers of scripts/install-peers.sh share. Sourced
# after `set -euo pipefail`, with STRATA_BIN_DIR and CLUSTER (tools/strata-cluster) set:
#   peer NAME               a value of peers.env (KAFKA_LIBS, GOMODCACHE, ...)
#   kafka_tool CLASS ARG... one of Kafka's tools by main class (SLF4J's notice dropped)
#   start_cluster NAME ARG... a temp dir DIR and a cluster started in it with ARGs, BS and
#                           STRATA_BOOTSTRAP_CONTROLLER set; on exit the cluster stops, the
#                           pids in BACKGROUND are killed, DIR is removed
#   fail MESSAGE            counts a failure; finish NAME exits 1 if any, else says passed
#   kill_leader_after FILE LINES PID TOPIC
#                           once FILE has LINES lines (or PID has ended), kill -9 of the
#                           broker leading partition 0 of TOPIC; prints what it did and
#                           sets KILLED to its id
PEERS=${STRATA_PEERS_DIR:-$HOME/.cache/strata-peers}
[[ -f $PEERS/peers.env ]] || { echo "no test peers in $PEERS: bash scripts/install-peers.sh" >&2; exit 1; }
S="$STRATA_BIN_DIR/strata"
BACKGROUND=()
failures=0

peer() { sed -n "s/^$1=//p" "$PEERS/peers.env"; }

# Kafka's tools by main class; their stderr without the logging noise, written before
# the tool returns (a test may read it at once).
kafka_tool() {
  local err rc=0 jvm=() archive libs
  err=$(mktemp)
  libs=$(peer KAFKA_LIBS)
  # A tool's JVM spends most of its ~1.3 s start loading classes: with an AppCDS archive
  # of them (made by the first tool run on this machine with this JDK, beside the jars)
  # and C1 alone (a tool runs for a second), it starts in ~0.6 s.
  archive="$libs/../tools-$(stat -Lc %Y-%s "$(command -v java)").jsa"
  if [[ -f $archive ]]; then jvm=(-XX:SharedArchiveFile="$archive"); else jvm=(-XX:ArchiveClassesAtExit="$archive.$BASHPID"); fi
  timeout 240 java -XX:TieredStopAtLevel=1 -Xlog:cds=off -Xlog:cds+dynamic=off "${jvm[@]}" \
    -cp "$libs/*" "$@" 2> "$err" || rc=$?
  # Only a tool that ended well wrote a whole archive; one rename, so readers see all of it or none.
  if [[ $rc == 0 && -f $archive.$BASHPID ]]; then mv -f "$archive.$BASHPID" "$archive"; fi
  rm -f "$archive.$BASHPID"
  grep -v '^SLF4J\|deprecated' "$err" >&2 || true
  rm -f "$err"
  return "$rc"
}

start_cluster() {
  local name=$1
  shift
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-$name.XXXXXX")
  trap stop_cluster EXIT
  "$CLUSTER" up --dir "$DIR" "$@" > /dev/null
  export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
  BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
}

stop_cluster() {
  local p
  # Each is a subshell running `timeout ... java`: its children first (timeout passes the
  # signal on to the JVM), so that nothing outlives the test.
  for p in "${BACKGROUND[@]}"; do
    pkill -P "$p" 2> /dev/null || true
    kill "$p" 2> /dev/null || true
  done
  "$CLUSTER" down --dir "$DIR" > /dev/null 2>&1 || true
  rm -rf "$DIR"
}

fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }

finish() {
  if ((failures > 0)); then exit 1; fi
  echo "$1 passed"
}

kill_leader_after() {
  local file=$1 lines=$2 pid=$3 topic=$4
  for _ in $(seq 600); do
    [[ -f $file && $(wc -l < "$file") -ge $lines ]] && break
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
  done
  KILLED=$("$S" topics describe "$topic" -o json | jq -r '.[0].partitions[] | select(.partition == 0) | .leader')
  echo "killing broker $KILLED (partition 0's leader) after $(wc -l < "$file") acknowledgements"
  "$CLUSTER" kill --dir "$DIR" "$KILLED"
}

# make_rsa_jwks DIR: an RSA key DIR/key.pem (what the tests sign tokens with) and its JWK
# (kid test-key, RS256) as the JSON Web Key Set DIR/jwks.json the brokers read for
# OAUTHBEARER (sasl.oauthbearer.jwks.endpoint.url).
make_rsa_jwks() {
  local dir=$1 modulus n
  openssl genrsa -out "$dir/key.pem" 2048 2> /dev/null
  modulus=$(openssl rsa -in "$dir/key.pem" -noout -modulus | sed 's/^Modulus=//')
  n=$(/usr/bin/python3 -c 'import base64, sys; print(base64.urlsafe_b64encode(bytes.fromhex(sys.argv[1])).rstrip(b"=").decode())' "$modulus")
  echo "{\"keys\": [{\"kty\": \"RSA\", \"kid\": \"test-key\", \"use\": \"sig\", \"alg\": \"RS256\", \"n\": \"$n\", \"e\": \"AQAB\"}]}" \
    > "$dir/jwks.json"
}

# java_producer_across_leader_kill TOPIC BOOTSTRAP: an idempotent Java producer
# (java/ProducerTest.java in $DIR/classes, started with the script's own `run`) sends
# 20000 values to the new topic TOPIC (RF 3, min.insync.replicas=2) while partition 0's
# leader is killed with -9 after 3000 acknowledgements; the broker is restarted, and every
# acknowledged value must be stored once.
java_producer_across_leader_kill() {
  local topic=$1 bootstrap=$2 producer
  "$S" topics create "$topic" --partitions 3 --replication-factor 3 --config min.insync.replicas=2 > /dev/null
  run ProducerTest produce "$bootstrap" "$topic" 20000 "$DIR/acked" &
  producer=$!
  BACKGROUND+=("$producer")
  kill_leader_after "$DIR/acked" 3000 "$producer" "$topic"
  wait "$producer" || fail "ProducerTest produce across the kill"
  "$CLUSTER" start --dir "$DIR" "$KILLED" > /dev/null
  run ProducerTest verify "$bootstrap" "$topic" "$DIR/acked" || fail "ProducerTest verify"
  [[ $(wc -l < "$DIR/acked") == 20000 ]] || fail "$(wc -l < "$DIR/acked") of 20000 acknowledged"
}
