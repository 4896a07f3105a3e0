#!/usr/bin/env bash
# A listener's TLS certificate replaced on a running broker (Kafka's dynamic
# listener.name.<listener>.ssl.keystore.location; issue 38): strata-cluster up --ssl (one
# controller, one broker with PLAINTEXT and SSL listeners) and kafka-configs --alter on
# the broker naming a new keystore: connections made from then on get the new
# certificate (openssl s_client) and kcat trusting only the new one produces and consumes
# over it; a file that does not load, and the cluster-wide default (a broker's own only,
# as Kafka), are refused with the key named and the certificate kept; the config deleted,
# the static keystore serves again.
# Usage: listener_tls_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
source "$(dirname "$0")/peers_lib.sh"

start_cluster listener-tls --controllers 1 --brokers 1 --ssl
SSL_BS=$(sed -n 's/^ssl.bootstrap.servers=//p' "$DIR/cluster.env")
KEY=listener.name.ssl.ssl.keystore.location
configs() { kafka_tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$BS" "$@"; }
served_serial() { openssl s_client -connect "${SSL_BS%%,*}" < /dev/null 2> /dev/null | openssl x509 -noout -serial; }
wait_serial() {  # serial=...
  for _ in $(seq 100); do [[ $(served_serial) == "$1" ]] && return 0; sleep 0.1; done
  return 1
}

static_serial=$(openssl x509 -in "$DIR/ssl/ca.pem" -noout -serial)
[[ $(served_serial) == "$static_serial" ]] || fail "the SSL listener serves $(served_serial), not its static certificate"
# The renewed certificate: another self-signed one for the same names.
mkdir -p "$DIR/renewed"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$DIR/renewed/key.pem" -out "$DIR/renewed/ca.pem" -days 30 \
  -subj /CN=localhost -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" 2> /dev/null
cat "$DIR/renewed/key.pem" "$DIR/renewed/ca.pem" > "$DIR/renewed/broker.pem"
renewed_serial=$(openssl x509 -in "$DIR/renewed/ca.pem" -noout -serial)

configs --alter --entity-type brokers --entity-name 2 --add-config "$KEY=$DIR/renewed/broker.pem" > /dev/null ||
  fail "kafka-configs --alter $KEY"
wait_serial "$renewed_serial" || fail "after the alter the SSL listener serves $(served_serial), not $renewed_serial"
"$S" topics create tls --partitions 1 --replication-factor 1 > /dev/null
ssl_kcat() { timeout 30 kcat -b "$SSL_BS" -X security.protocol=SSL -X ssl.ca.location="$DIR/renewed/ca.pem" "$@"; }
seq 1 50 | ssl_kcat -P -t tls -X acks=all || fail "kcat trusting the renewed certificate could not produce"
[[ $(ssl_kcat -C -t tls -o beginning -e -q | wc -l) == 50 ]] || fail "kcat over the renewed certificate read back less"

# Refused, the renewed certificate kept: a file that does not load; the cluster default.
if configs --alter --entity-type brokers --entity-name 2 --add-config "$KEY=$DIR/none.pem" 2> "$DIR/err"; then
  fail "kafka-configs accepted a keystore that does not exist"
fi
grep -q "$KEY" "$DIR/err" || fail "the refusal of a missing keystore does not name $KEY: $(cat "$DIR/err")"
if configs --alter --entity-type brokers --entity-default --add-config "$KEY=$DIR/renewed/broker.pem" 2> "$DIR/err"; then
  fail "kafka-configs set a keystore as the cluster-wide default"
fi
grep -q "broker id must be specified" "$DIR/err" || fail "the refusal at the cluster default: $(cat "$DIR/err")"
[[ $(served_serial) == "$renewed_serial" ]] || fail "a refused alter changed the certificate to $(served_serial)"

# Deleted: the static keystore again.
configs --alter --entity-type brokers --entity-name 2 --delete-config "$KEY" > /dev/null
wait_serial "$static_serial" || fail "after --delete-config the SSL listener serves $(served_serial)"
finish listener_tls_test
