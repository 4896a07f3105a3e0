#!/usr/bin/env bash
# SASL on the Kafka listeners with real clients (issue 36): a cluster made by
# strata-cluster up --secure (one controller, three brokers; SASL_SSL and SASL_PLAINTEXT
# listeners with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512), users made with `strata users`
# and with Kafka's own kafka-configs (AlterUserScramCredentials). kcat and confluent-kafka
# (the librdkafka with_librdkafka.sh chose) produce and consume with each mechanism over
# each listener; a wrong password, an unknown user and a mechanism the broker does not
# enable are refused, counted, and leave the brokers serving everyone else; with
# connections.max.reauth.ms, a producer's connections outlive several sessions with
# nothing lost (sasl_clients_test.py says what is checked).
# Usage: sasl_clients_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/peers_lib.sh"
PY=${STRATA_PYTHON:-/usr/bin/python3}

start_cluster sasl --controllers 1 --brokers 3 --secure --override connections.max.reauth.ms=4000
export STRATA_COMMAND_CONFIG=$DIR/admin.properties
env_value() { sed -n "s/^$1=//p" "$DIR/cluster.env"; }
SASL_SSL=$(env_value bootstrap.servers)
SASL_PLAINTEXT=$(env_value sasl_plaintext.bootstrap.servers)
CA=$(env_value ssl.ca.location)
ADMIN_PASSWORD=$(env_value sasl.password)

# Users: alice (SCRAM-SHA-256) with the strata CLI; carol (SCRAM-SHA-512) with kafka-configs.
echo alice-secret > "$DIR/alice.password"
"$S" users set alice --mechanism SCRAM-SHA-256 --password-file "$DIR/alice.password" > /dev/null
kafka_tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$SASL_SSL" --command-config "$DIR/admin.properties" \
  --alter --entity-type users --entity-name carol --add-config 'SCRAM-SHA-512=[iterations=8192,password=carol-secret]' \
  || fail "kafka-configs could not set carol's SCRAM-SHA-512 credential"
described=$("$S" users describe alice carol -o json)
jq -e 'length == 2 and (map(.user + ":" + .mechanism + ":" + (.iterations | tostring)) | sort) ==
  ["alice:SCRAM-SHA-256:8192", "carol:SCRAM-SHA-512:8192"]' <<< "$described" > /dev/null ||
  fail "strata users describe: $described"

"$S" topics create sasl --partitions 3 --replication-factor 3 > /dev/null

# kcat: each mechanism over each listener.
n=0
for listener in SASL_SSL SASL_PLAINTEXT; do
  bs=$SASL_SSL; [[ $listener == SASL_PLAINTEXT ]] && bs=$SASL_PLAINTEXT
  for who in PLAIN:admin:$ADMIN_PASSWORD SCRAM-SHA-256:alice:alice-secret SCRAM-SHA-512:carol:carol-secret; do
    IFS=: read -r mechanism user password <<< "$who"
    opts=(-b "$bs" -X security.protocol="$listener" -X sasl.mechanism="$mechanism" -X sasl.username="$user"
          -X sasl.password="$password")
    [[ $listener == SASL_SSL ]] && opts+=(-X ssl.ca.location="$CA")
    n=$((n + 1))
    seq 1 10 | sed "s/^/kcat-$n-/" | timeout 60 kcat "${opts[@]}" -P -t sasl -X acks=all ||
      fail "kcat could not produce as $user with $mechanism over $listener"
  done
done
got=$(timeout 60 kcat -F "$DIR/client.properties" -C -t sasl -e -q -o beginning | sort | uniq | wc -l)
[[ $got == $((n * 10)) ]] || fail "kcat read $got distinct records back, not $((n * 10))"
# A wrong password: kcat cannot even list the cluster.
if timeout 30 kcat -b "$SASL_SSL" -X security.protocol=SASL_SSL -X sasl.mechanism=SCRAM-SHA-512 -X sasl.username=carol \
    -X sasl.password=wrong -X ssl.ca.location="$CA" -L -m 5 > "$DIR/wrong.out" 2>&1; then
  fail "kcat listed the cluster with a wrong password"
fi
grep -q "Authentication failed\|SASL authentication error" "$DIR/wrong.out" || fail "kcat's refusal: $(tail -3 "$DIR/wrong.out")"

timeout 240 "$PY" "$HERE/sasl_clients_test.py" "$SASL_SSL" "$SASL_PLAINTEXT" "$CA" "$ADMIN_PASSWORD" ||
  fail "sasl_clients_test.py"

# Every broker counted refusals, served its clients, and no broker closed a connection on error.
for id in 2 3 4; do
  port=$(sed -n 's/^metrics.listener=.*://p' "$DIR/node-$id/server.properties")
  metrics=$(curl -s "http://127.0.0.1:$port/metrics")
  grep -q 'strata_kafka_authentications_total{listener="SASL_SSL",result="success"' <<< "$metrics" ||
    fail "broker $id has no SASL metrics"
done
total_failed=$(for id in 2 3 4; do
  port=$(sed -n 's/^metrics.listener=.*://p' "$DIR/node-$id/server.properties")
  curl -s "http://127.0.0.1:$port/metrics" | sed -n 's/^strata_kafka_authentications_total{.*result="failure"} //p'
done | awk '{s += $1} END {print s + 0}')
(( total_failed >= 3 )) || fail "the brokers counted $total_failed failed authentications, not at least 3"
finish "sasl_clients"
