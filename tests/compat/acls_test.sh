#!/usr/bin/env bash
# ACLs and the StandardAuthorizer with real clients (issue 36): strata-cluster up --secure
# with authorizer.class.name set (one controller, three brokers; the admin is a super
# user). Kafka's kafka-acls (AclCommand, through a broker: CreateAcls, DescribeAcls,
# DeleteAcls) and `strata acls` manage bindings; kcat as users authenticated with SCRAM
# shows them applied: a producer allowed Write on one topic only, a consumer allowed Read
# on a topic and one group, a user without ACLs who sees no topic, a DENY over an ALLOW,
# a prefixed binding, and refusals of CreateTopics and DeleteTopics that write nothing.
# Usage: acls_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/peers_lib.sh"

start_cluster acls --controllers 1 --brokers 3 --secure \
  --override authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
export STRATA_COMMAND_CONFIG=$DIR/admin.properties
env_value() { sed -n "s/^$1=//p" "$DIR/cluster.env"; }
BS=$(env_value bootstrap.servers)
CA=$(env_value ssl.ca.location)
ADMIN_PASSWORD=$(env_value sasl.password)
for user in alice bob; do
  echo "$user-secret" > "$DIR/$user.password"
  "$S" users set "$user" --mechanism SCRAM-SHA-512 --password-file "$DIR/$user.password" > /dev/null
done
"$S" topics create orders --partitions 3 --replication-factor 3 > /dev/null
"$S" topics create other --partitions 1 --replication-factor 3 > /dev/null
"$S" topics create logs-app --partitions 1 --replication-factor 3 > /dev/null

as() {  # as USER kcat-args...: kcat over SASL_SSL with SCRAM-SHA-512
  local user=$1 password
  shift
  password=$user-secret
  [[ $user == admin ]] && password=$ADMIN_PASSWORD
  timeout 30 kcat -b "$BS" -X security.protocol=SASL_SSL -X sasl.mechanism=SCRAM-SHA-512 -X sasl.username="$user" \
    -X sasl.password="$password" -X ssl.ca.location="$CA" "$@"
}
acls() { kafka_tool org.apache.kafka.tools.AclCommand --bootstrap-server "$BS" --command-config "$DIR/admin.properties" "$@"; }

# 1. kafka-acls: alice may write to and read orders, in group g1.
acls --add --allow-principal User:alice --operation Write --operation Read --topic orders > /dev/null ||
  fail "kafka-acls --add on a topic"
acls --add --allow-principal User:alice --operation Read --group g1 > /dev/null || fail "kafka-acls --add on a group"
listed=$(acls --list --topic orders)
grep -q "principal=User:alice, host=\*, operation=WRITE, permissionType=ALLOW" <<< "$listed" ||
  fail "kafka-acls --list: $listed"
[[ $("$S" acls list --principal User:alice -o json | jq length) == 3 ]] || fail "strata acls list: $("$S" acls list)"

# 2. alice writes to orders; not to other (TOPIC_AUTHORIZATION_FAILED), which stays empty.
seq 1 20 | sed 's/^/alice-/' | as alice -P -t orders -X acks=all || fail "alice could not write to orders"
if echo x | as alice -P -t other -X acks=all 2> "$DIR/other.err"; then fail "alice wrote to other"; fi
grep -qi "authoriz" "$DIR/other.err" || fail "alice's refusal on other: $(tail -2 "$DIR/other.err")"
[[ $(as admin -C -t other -e -q -o beginning | wc -l) == 0 ]] || fail "other holds records after a refusal"
# 3. alice reads orders in group g1, not in g2.
[[ $(as alice -G g1 orders -X auto.offset.reset=earliest -e -q -c 20 2> /dev/null | wc -l) == 20 ]] ||
  fail "alice could not consume orders in group g1"
if as alice -G g2 orders -e -q -c 1 > /dev/null 2> "$DIR/g2.err"; then fail "alice consumed in group g2"; fi
grep -qi "authoriz" "$DIR/g2.err" || fail "alice's refusal in group g2: $(tail -2 "$DIR/g2.err")"
# 4. bob has no ACL: Metadata lists no topic, his writes are refused.
topics=$(as bob -L -J | jq '.topics | length')
[[ $topics == 0 ]] || fail "bob sees $topics topics"
if echo x | as bob -P -t orders -X acks=all 2> /dev/null; then fail "bob wrote to orders"; fi
# 5. A DENY over an ALLOW, and a prefixed binding.
"$S" acls add --principal User:alice --operation Write --topic orders --deny > /dev/null || fail "strata acls add --deny"
if echo x | as alice -P -t orders -X acks=all 2> /dev/null; then fail "alice wrote to orders past a DENY"; fi
"$S" acls remove --principal User:alice --topic orders --operation Write --deny > /dev/null || fail "strata acls remove"
echo again | as alice -P -t orders -X acks=all || fail "alice could not write once the DENY was removed"
"$S" acls add --principal User:bob --operation Write --topic logs- --pattern prefixed > /dev/null
echo log | as bob -P -t logs-app -X acks=all || fail "bob could not write to logs-app under the prefixed binding"
# 6. Refusals that write nothing: CreateTopics and DeleteTopics without Create and Delete.
before=$("$S" topics list -o json | jq -c '[.[].name] | sort')
if kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BS" --command-config <(sed "s/\"admin\"/\"alice\"/; s/password=\"[^\"]*\"/password=\"alice-secret\"/" "$DIR/admin.properties") \
    --create --topic alices --partitions 1 --replication-factor 1 > "$DIR/create.out" 2>&1; then
  fail "alice created a topic"
fi
grep -q "TopicAuthorizationException\|ClusterAuthorizationException\|not authorized" "$DIR/create.out" ||
  fail "alice's CreateTopics refusal: $(tail -3 "$DIR/create.out")"
if kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BS" --command-config <(sed "s/\"admin\"/\"bob\"/; s/password=\"[^\"]*\"/password=\"bob-secret\"/" "$DIR/admin.properties") \
    --delete --topic logs-app > "$DIR/delete.out" 2>&1; then
  fail "bob deleted a topic"
fi
after=$("$S" topics list -o json | jq -c '[.[].name] | sort')
[[ $before == "$after" ]] || fail "the topics changed after refusals: $before -> $after"
# 7. kafka-acls --remove: alice loses Read on orders.
acls --remove --force --allow-principal User:alice --operation Read --topic orders > /dev/null || fail "kafka-acls --remove"
if as alice -C -t orders -e -q -c 1 -o beginning > /dev/null 2>&1; then fail "alice read orders after --remove"; fi
# The brokers counted the denials.
denied=$(for id in 2 3 4; do
  port=$(sed -n 's/^metrics.listener=.*://p' "$DIR/node-$id/server.properties")
  curl -s "http://127.0.0.1:$port/metrics" | sed -n 's/^strata_authorizer_decisions_total{result="denied"} //p'
done | awk '{s += $1} END {print s + 0}')
(( denied > 0 )) || fail "no broker counted a denial"
grep -h "authorizer: Principal = User:bob is Denied" "$DIR"/node-*/server.log > /dev/null ||
  fail "no denial in the decision log"
finish "acls"
