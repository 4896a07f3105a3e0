#!/usr/bin/env bash
# SASL/OAUTHBEARER with real clients (issue 36): RS256 JWTs checked against a JWKS file
# (sasl.oauthbearer.jwks.endpoint.url) on a strata-cluster up --secure cluster (one
# controller, three brokers) that enables OAUTHBEARER beside the SCRAM mechanisms, with
# an expected audience and issuer and connections.max.reauth.ms=60000; confluent-kafka
# (the librdkafka with_librdkafka.sh chose) with an oauth_cb (oauthbearer_test.py says
# what is checked). The keys are made here with the openssl tool.
# Usage: oauthbearer_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/peers_lib.sh"
PY=${STRATA_PYTHON:-/usr/bin/python3}

KEYS=$(mktemp -d "${TMPDIR:-/tmp}/strata-oauth-keys.XXXXXX")
trap 'stop_cluster; rm -rf "$KEYS"' EXIT
openssl genrsa -out "$KEYS/key.pem" 2048 2> /dev/null
openssl genrsa -out "$KEYS/other.pem" 2048 2> /dev/null
modulus=$(openssl rsa -in "$KEYS/key.pem" -noout -modulus | sed 's/^Modulus=//')
n=$(/usr/bin/python3 -c 'import base64, sys; print(base64.urlsafe_b64encode(bytes.fromhex(sys.argv[1])).rstrip(b"=").decode())' "$modulus")
echo "{\"keys\": [{\"kty\": \"RSA\", \"kid\": \"test-key\", \"use\": \"sig\", \"alg\": \"RS256\", \"n\": \"$n\", \"e\": \"AQAB\"}]}" \
  > "$KEYS/jwks.json"

start_cluster oauth --controllers 1 --brokers 3 --secure \
  --override sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER \
  --override "sasl.oauthbearer.jwks.endpoint.url=file://$KEYS/jwks.json" \
  --override sasl.oauthbearer.expected.audience=kafka \
  --override sasl.oauthbearer.expected.issuer=https://issuer.test \
  --override connections.max.reauth.ms=60000
trap 'stop_cluster; rm -rf "$KEYS"' EXIT
export STRATA_COMMAND_CONFIG=$DIR/admin.properties
"$S" topics create oauth --partitions 3 --replication-factor 3 > /dev/null
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
CA=$(sed -n 's/^ssl.ca.location=//p' "$DIR/cluster.env")
timeout 240 "$PY" "$HERE/oauthbearer_test.py" "$BS" "$CA" "$KEYS/key.pem" "$KEYS/other.pem" || fail "oauthbearer_test.py"
grep -h "OAUTHBEARER authentication failed" "$DIR"/node-*/server.log > /dev/null || fail "no broker logged a refused token"
finish "oauthbearer"
