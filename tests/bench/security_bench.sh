#!/usr/bin/env bash
# The cost of security on the Kafka listeners, in one run on one cluster
# (strata-cluster up --secure: one controller, three brokers, mutual TLS on the control
# plane, the StandardAuthorizer, SASL_SSL between brokers), whose brokers are given two
# more listeners for the comparison: PLAINTEXT and SSL (server-authenticated TLS). So each
# client-facing protocol is measured against the same brokers, the same replication and
# the same authorizer; only the client's connection differs:
#   1. produce throughput: strata-perf produce of N records of 1 KiB, RF 3, acks=all, 3
#      partitions, over PLAINTEXT, SSL and SASL_SSL (SCRAM-SHA-512), ROUNDS rounds, each
#      round starting with the next protocol (so that none always runs first on a fresh
#      page cache or last on a full one); medians printed, each round's figures in its
#      RESULT line;
#   2. one record at a time: LAT_N records, one request in flight (--batch-size 1
#      --max-in-flight 1), RF 3 acks=all, per protocol and round;
#   3. connection set-up: strata-perf connect, CONNECTIONS connections one after another
#      (TCP, TLS, SASL, ApiVersions) over PLAINTEXT, SSL, SASL_SSL with PLAIN and with
#      SCRAM-SHA-256 and SCRAM-SHA-512 (credentials of ITERATIONS iterations): a SCRAM
#      handshake costs the difference against SSL.
# Prints a table, then `RESULT <kind> key=value ...` lines. Nothing is asserted beyond
# every record being acknowledged. Takes about a minute on 2 cores with the defaults.
# Usage: security_bench.sh <bin dir> <strata-cluster>; from the environment: N (100000),
#   LAT_N (1000), ROUNDS (5), CONNECTIONS (200), ITERATIONS (4096, Kafka's default).
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?usage: $0 <bin dir> <strata-cluster>}
S="$STRATA_BIN_DIR/strata"
PERF="$STRATA_BIN_DIR/strata-perf"
N=${N:-100000}
LAT_N=${LAT_N:-1000}
ROUNDS=${ROUNDS:-5}
CONNECTIONS=${CONNECTIONS:-200}
ITERATIONS=${ITERATIONS:-4096}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-security-bench.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
RESULTS=()
result() { RESULTS+=("RESULT $*"); }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 --secure >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
export STRATA_COMMAND_CONFIG=$DIR/admin.properties
SASL_SSL=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
CA=$DIR/certs/ca.pem

# Each broker gets PLAINTEXT and SSL listeners too; their principal, User:ANONYMOUS, is
# made a super user so that the authorizer answers all three alike.
"$CLUSTER" down --dir "$DIR" >/dev/null
PLAINTEXT=""; SSL=""
for props in "$DIR"/node-{2,3,4}/server.properties; do
  p=$(free_port); s=$(free_port)
  sed -i -e "s|^listeners=.*|&,PLAINTEXT://127.0.0.1:$p,SSL://127.0.0.1:$s|" \
    -e 's|^listener.security.protocol.map=.*|&,SSL:SSL|' -e 's|^super.users=.*|&;User:ANONYMOUS|' "$props"
  PLAINTEXT+="${PLAINTEXT:+,}127.0.0.1:$p"; SSL+="${SSL:+,}127.0.0.1:$s"
done
for id in 1 2 3 4; do "$CLUSTER" start --dir "$DIR" "$id" >/dev/null; done
up() { "$S" cluster describe -o json 2>/dev/null | jq -e '[.brokers[] | select(.fenced == false)] | length == 3' >/dev/null; }
for _ in $(seq 300); do up && break; sleep 0.1; done  # polling the restarted cluster
up || { echo "the cluster did not come back with its new listeners" >&2; exit 1; }

ADMIN_PASSWORD=$(cat "$DIR/admin.password")
for m in SCRAM-SHA-256 SCRAM-SHA-512; do
  "$S" users set admin --mechanism "$m" --password-file "$DIR/admin.password" --iterations "$ITERATIONS" >/dev/null
done
printf 'security.protocol=SSL\nssl.truststore.location=%s\n' "$CA" >"$DIR/ssl.properties"
for m in PLAIN SCRAM-SHA-256 SCRAM-SHA-512; do
  printf 'security.protocol=SASL_SSL\nssl.truststore.location=%s\nsasl.mechanism=%s\nsasl.username=admin\nsasl.password=%s\n' \
    "$CA" "$m" "$ADMIN_PASSWORD" >"$DIR/$m.properties"
done
declare -A BOOTSTRAP=([PLAINTEXT]=$PLAINTEXT [SSL]=$SSL [SASL_SSL]=$SASL_SSL)
declare -A CONFIG=([PLAINTEXT]="" [SSL]=$DIR/ssl.properties [SASL_SSL]=$DIR/SCRAM-SHA-512.properties)
PROTOCOLS=(PLAINTEXT SSL SASL_SSL)

ready() {  # every partition of the topic led, with an ISR of 3
  "$S" topics describe "$1" -o json | jq -e 'all(.[0].partitions[]; .leader >= 0 and (.isr | length) == 3)' >/dev/null
}
for proto in "${PROTOCOLS[@]}"; do
  "$S" topics create "tp-$proto" --partitions 3 --replication-factor 3 --config min.insync.replicas=2 >/dev/null
  "$S" topics create "lat-$proto" --partitions 1 --replication-factor 3 --config min.insync.replicas=2 >/dev/null
  for t in "tp-$proto" "lat-$proto"; do
    for _ in $(seq 300); do ready "$t" && break; sleep 0.1; done  # polling the ISR
  done
done
sleep 1  # past a follower's first fetch backoff (replication_bench.sh explains)

perf() {  # perf PROTOCOL strata-perf-args...
  local proto=$1
  shift
  "$PERF" "$@" --bootstrap-server "${BOOTSTRAP[$proto]}" ${CONFIG[$proto]:+--command-config "${CONFIG[$proto]}"} --json
}
declare -A TP LAT
for round in $(seq "$ROUNDS"); do
  for k in 0 1 2; do
    proto=${PROTOCOLS[$(((round + k) % 3))]}
    out=$(perf "$proto" produce --topic "tp-$proto" --num-records "$N" --record-size 1024 --acks -1)
    [[ $(jq .records_acked <<<"$out") == "$N" ]] || { echo "produce over $proto: $out" >&2; exit 1; }
    rps=$(jq '.records_per_s|round' <<<"$out")
    TP[$proto]+="$rps "
    result produce "protocol=$proto" "round=$round" "records=$N" "records_per_s=$rps" \
      "$(jq -r '"mb_per_s=\(.mb_per_s*10|round/10) p50_ms=\(.request_latency.p50_ms*100|round/100) p99_ms=\(.request_latency.p99_ms*100|round/100)"' <<<"$out")"
    out=$(perf "$proto" produce --topic "lat-$proto" --num-records "$LAT_N" --record-size 1024 --acks -1 \
      --batch-size 1 --max-in-flight 1)
    [[ $(jq .records_acked <<<"$out") == "$LAT_N" ]] || { echo "one at a time over $proto: $out" >&2; exit 1; }
    p50=$(jq '.request_latency.p50_ms*1000|round/1000' <<<"$out")
    LAT[$proto]+="$p50 "
    result one_at_a_time "protocol=$proto" "round=$round" "records=$LAT_N" "p50_ms=$p50" \
      "$(jq -r '"p99_ms=\(.request_latency.p99_ms*1000|round/1000) max_ms=\(.request_latency.max_ms*100|round/100)"' <<<"$out")"
  done
done

declare -A CONNECT
connect() {  # connect NAME PROTOCOL [config]
  local out
  out=$("$PERF" connect --bootstrap-server "${BOOTSTRAP[$2]%%,*}" --num-connections "$CONNECTIONS" \
    ${3:+--command-config "$3"} --json)
  CONNECT[$1]=$(jq '.connect_latency.p50_ms*1000|round/1000' <<<"$out")
  result connect "name=$1" "connections=$CONNECTIONS" "iterations=$ITERATIONS" \
    "$(jq -r '"p50_ms=\(.connect_latency.p50_ms*1000|round/1000) p99_ms=\(.connect_latency.p99_ms*1000|round/1000) avg_ms=\(.connect_latency.avg_ms*1000|round/1000)"' <<<"$out")"
}
connect PLAINTEXT PLAINTEXT
connect SSL SSL "$DIR/ssl.properties"
for m in PLAIN SCRAM-SHA-256 SCRAM-SHA-512; do connect "SASL_SSL/$m" SASL_SSL "$DIR/$m.properties"; done

printf '%-24s %16s %22s\n' protocol "produce rec/s" "one at a time p50 ms"
for proto in "${PROTOCOLS[@]}"; do
  printf '%-24s %16s %22s\n' "$proto" "$(tr ' ' '\n' <<<"${TP[$proto]}" | grep . | median)" \
    "$(tr ' ' '\n' <<<"${LAT[$proto]}" | grep . | median)"
done
printf '\n%-24s %16s\n' connection "p50 ms"
for name in PLAINTEXT SSL SASL_SSL/PLAIN SASL_SSL/SCRAM-SHA-256 SASL_SSL/SCRAM-SHA-512; do
  printf '%-24s %16s\n' "$name" "${CONNECT[$name]}"
done
for proto in "${PROTOCOLS[@]}"; do
  result produce_median "protocol=$proto" "rounds=$ROUNDS" \
    "records_per_s=$(tr ' ' '\n' <<<"${TP[$proto]}" | grep . | median)" \
    "one_at_a_time_p50_ms=$(tr ' ' '\n' <<<"${LAT[$proto]}" | grep . | median)"
done
for m in SCRAM-SHA-256 SCRAM-SHA-512; do
  result scram_handshake "mechanism=$m" "iterations=$ITERATIONS" \
    "ms=$(awk -v a="${CONNECT[SASL_SSL/$m]}" -v b="${CONNECT[SSL]}" 'BEGIN { printf "%.3f", a - b }')"
done
printf '%s\n' "${RESULTS[@]}"
