#!/usr/bin/env bash
# The secrets of the secure compose variant (docker-compose.secure.yml), made on the host
# before the first `up`:
#   make-secrets.sh [DIR]        (default: deploy/secrets, which git ignores)
# In DIR, with tools/strata-certs (openssl): a CA (ca.pem, ca.key), each node's
# certificate naming its node id and service name (controller-1..3.pem, broker-4..6.pem:
# key and certificate, Kafka's PEM keystore), an admin client certificate (admin.pem,
# CN=admin: User:admin, a super user); random passwords for the user admin (PLAIN and,
# once set, SCRAM) and for the brokers' own login (User:broker, PLAIN on the INTERNAL
# listener); and the files that use them:
#   secure.env           the variables the compose file reads (docker-compose --env-file)
#   admin.properties     client config for the strata CLI (--command-config: mutual TLS
#                        to the controllers) and Kafka's tools, SASL_SSL with
#                        SCRAM-SHA-512 as admin, paths on this host
#   client.properties    librdkafka's names (kcat -F), SASL_SSL with SCRAM-SHA-512 as admin
#   healthcheck.properties  the containers' health check (the admin certificate, paths
#                        inside the containers)
# Refuses to overwrite an existing DIR/ca.pem (the cluster's certificates would no longer
# chain). Not a PKI for production: keys are unencrypted and the CA key lives beside them.
# Run as root, it gives the files to uid 1000 (the image's user strata).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-$here/secrets}
certs="$here/../tools/strata-certs"
[[ -f $dir/ca.pem ]] && { echo "make-secrets: $dir/ca.pem exists; remove $dir to start over" >&2; exit 1; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
umask 077
for id in 1 2 3; do bash "$certs" "$dir" "controller-$id" --controller "$id" --host "controller-$id" >/dev/null; done
for id in 4 5 6; do bash "$certs" "$dir" "broker-$id" --broker "$id" --host "broker-$id" >/dev/null; done
bash "$certs" "$dir" admin --cn admin >/dev/null
openssl rand -hex 16 >"$dir/admin.password"
openssl rand -hex 16 >"$dir/broker.password"
admin=$(cat "$dir/admin.password")
broker=$(cat "$dir/broker.password")
{
  echo "STRATA_SECRETS_DIR=$dir"
  echo "STRATA_ADMIN_PASSWORD=$admin"
  echo "STRATA_BROKER_PASSWORD=$broker"
} >"$dir/secure.env"
{
  echo "security.protocol=SASL_SSL"
  echo "ssl.keystore.type=PEM"
  echo "ssl.keystore.location=$dir/admin.pem"
  echo "ssl.truststore.type=PEM"
  echo "ssl.truststore.location=$dir/ca.pem"
  echo "sasl.mechanism=SCRAM-SHA-512"
  echo "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"admin\" password=\"$admin\";"
} >"$dir/admin.properties"
{
  echo "security.protocol=SASL_SSL"
  echo "sasl.mechanism=SCRAM-SHA-512"
  echo "sasl.username=admin"
  echo "sasl.password=$admin"
  echo "ssl.ca.location=$dir/ca.pem"
} >"$dir/client.properties"
{
  echo "security.protocol=SSL"
  echo "ssl.keystore.location=/etc/strata/secrets/admin.pem"
  echo "ssl.truststore.location=/etc/strata/secrets/ca.pem"
} >"$dir/healthcheck.properties"
chmod 644 "$dir/ca.pem"
if (( $(id -u) == 0 )); then chown -R 1000:1000 "$dir"; fi
echo "$dir"
