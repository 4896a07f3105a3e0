#!/usr/bin/env bash
# SASL/OAUTHBEARER with real clients (issue 36): RS256 JWTs checked against a JWKS served
# over HTTPS (sasl.oauthbearer.jwks.endpoint.url=https://127.0.0.1:PORT/jwks.json, by
# Python's http.server with a certificate from tools/strata-certs, the CA given as the
# OAuthBearerLoginModule's ssl.truststore.location) on a strata-cluster up --secure cluster (one
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
make_rsa_jwks "$KEYS"
openssl genrsa -out "$KEYS/other.pem" 2048 2> /dev/null

# The JWKS over HTTPS on 127.0.0.1 (a free port the server picks and prints).
bash "$HERE/../../tools/strata-certs" "$KEYS/tls" jwks --host 127.0.0.1 > /dev/null
"$PY" -u - "$KEYS" "$KEYS/tls/jwks.pem" > "$KEYS/port" 2> "$KEYS/server.log" <<'SERVE' &
import functools, http.server, ssl, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=sys.argv[1]))
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[2])
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1])
server.serve_forever()
SERVE
BACKGROUND+=($!)
for _ in $(seq 100); do [[ -s $KEYS/port ]] && break; sleep 0.1; done  # polling for the port line
[[ -s $KEYS/port ]] || { cat "$KEYS/server.log" >&2; echo "the JWKS server did not start" >&2; exit 1; }
JWKS_URL="https://127.0.0.1:$(cat "$KEYS/port")/jwks.json"
# Each SASL listener reads the endpoint's CA from its own OAuthBearerLoginModule entry.
OAUTH_JAAS="org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required ssl.truststore.location=\"$KEYS/tls/ca.pem\";"

start_cluster oauth --controllers 1 --brokers 3 --secure \
  --override sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER \
  --override "sasl.oauthbearer.jwks.endpoint.url=$JWKS_URL" \
  --override "listener.name.sasl_ssl.oauthbearer.sasl.jaas.config=$OAUTH_JAAS" \
  --override "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config=$OAUTH_JAAS" \
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
