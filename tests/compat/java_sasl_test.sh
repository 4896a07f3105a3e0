#!/usr/bin/env bash
# The Java client (kafka-clients 4.4.0) over SASL_SSL against strata-cluster up --secure
# (one controller, three brokers): SCRAM-SHA-256 and SCRAM-SHA-512 users made with the
# strata CLI, and OAUTHBEARER with RS256 JWTs signed by java/TestTokenHandler.java with a
# key made here (its JWK in the brokers' sasl.oauthbearer.jwks.endpoint.url), produce,
# consume in a group and administer; a wrong password, an unknown user and an expired
# token are refused with SaslAuthenticationException and nothing is stored
# (java/SaslTest.java); the strata CLI lists and describes the group over SASL_SSL. Then
# an idempotent producer as the admin (the cluster's
# admin.properties) across a kill -9 of a partition leader, while the followers
# replicate over the SASL_SSL inter-broker listener (PLAIN as User:broker): every
# acknowledged value stored, none twice (java/ProducerTest.java).
# Usage: java_sasl_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/peers_lib.sh"
KAFKA_LIBS=$(peer KAFKA_LIBS)
run() { timeout 300 java -cp "$DIR/classes:$KAFKA_LIBS/*" "$@" 2> >(grep -v '^SLF4J' >&2); }

# An RSA key whose JWK the brokers read for OAUTHBEARER (TestTokenHandler signs with it).
KEYS=$(mktemp -d "${TMPDIR:-/tmp}/strata-java-oauth.XXXXXX")
make_rsa_jwks "$KEYS"
start_cluster java-sasl-test --controllers 1 --brokers 3 --secure --override group.initial.rebalance.delay.ms=0 \
  --override sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER,PLAIN \
  --override "sasl.oauthbearer.jwks.endpoint.url=file://$KEYS/jwks.json" --override sasl.oauthbearer.expected.audience=kafka
trap 'stop_cluster; rm -rf "$KEYS"' EXIT
export STRATA_COMMAND_CONFIG=$DIR/admin.properties
javac -Xlint:-options -nowarn -d "$DIR/classes" -cp "$KAFKA_LIBS/*" "$HERE"/java/Check.java "$HERE"/java/SaslTest.java \
  "$HERE"/java/TestTokenHandler.java "$HERE"/java/ProducerTest.java 2>&1 |
  grep -v '^Note:' >&2 || true
[[ -f $DIR/classes/SaslTest.class ]] || { echo "javac failed" >&2; exit 1; }
SASL_SSL=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
CA=$(sed -n 's/^ssl.ca.location=//p' "$DIR/cluster.env")
echo java-256 > "$DIR/p256"
echo java-512 > "$DIR/p512"
"$S" users set jv256 --mechanism SCRAM-SHA-256 --password-file "$DIR/p256" > /dev/null
"$S" users set jv512 --mechanism SCRAM-SHA-512 --password-file "$DIR/p512" > /dev/null
"$S" topics create java-sasl --partitions 3 --replication-factor 3 > /dev/null

run SaslTest scram "$SASL_SSL" "$CA" jv256 java-256 SCRAM-SHA-256 || fail "SaslTest scram SCRAM-SHA-256"
run SaslTest scram "$SASL_SSL" "$CA" jv512 java-512 SCRAM-SHA-512 || fail "SaslTest scram SCRAM-SHA-512"
# The strata CLI reaches the group coordinators over SASL_SSL as the admin (admin.properties).
"$S" groups list > "$DIR/groups" 2>&1 && grep -q '^java-sasl ' "$DIR/groups" \
  || { cat "$DIR/groups" >&2; fail "strata groups list over SASL_SSL does not list java-sasl"; }
"$S" groups describe java-sasl > "$DIR/group" 2>&1 || { cat "$DIR/group" >&2; fail "strata groups describe over SASL_SSL"; }
run SaslTest refused "$SASL_SSL" "$CA" jv512 wrong SCRAM-SHA-512 || fail "SaslTest refused (a wrong password)"
run SaslTest refused "$SASL_SSL" "$CA" nobody x SCRAM-SHA-256 || fail "SaslTest refused (an unknown user)"
run SaslTest oauth "$SASL_SSL" "$CA" "$KEYS/key.pem" 30 || fail "SaslTest oauth"
run SaslTest oauth-refused "$SASL_SSL" "$CA" "$KEYS/key.pem" -600 || fail "SaslTest oauth-refused (an expired token)"
stored=$(timeout 60 kcat -F "$DIR/client.properties" -C -t java-sasl -e -q -o beginning | grep -c must-not-arrive || true)
[[ $stored == 0 ]] || fail "a refused producer's record was stored"

# kill -9 of partition 0's leader while the producer has records in flight: the
# followers fetch over SASL_SSL (the only listeners are SASL_SSL and SASL_PLAINTEXT).
grep -q '^inter.broker.listener.name=SASL_SSL$' "$DIR/node-2/server.properties" || fail "SASL_SSL is not the inter-broker listener"
export STRATA_JAVA_CLIENT_CONFIG=$DIR/admin.properties
java_producer_across_leader_kill killed "$SASL_SSL"
# The restarted broker catches up over SASL_SSL: every partition's ISR has all three again.
in_sync() { "$S" topics describe killed -o json | jq -e 'all(.[0].partitions[]; (.isr | length) == 3)' > /dev/null; }
for _ in $(seq 300); do in_sync && break; sleep 0.1; done  # polling the ISR, bounded
in_sync || fail "the restarted broker did not rejoin every ISR over SASL_SSL"
finish "java_sasl"
