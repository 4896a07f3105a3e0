#!/usr/bin/env bash
# A local Apache Kafka cluster in KRaft combined mode (each node a broker and a
# controller), from the jars of scripts/install-peers.sh, on 127.0.0.1 with free ports:
# Kafka's peer in the benchmarks (kafka_sidebyside.sh) and the tests that compare.
#   kafka_cluster.sh up DIR [N]      formats and starts N nodes (default 3), waits until
#                                    every broker answers and the quorum has a leader;
#                                    writes DIR/cluster.env (bootstrap.servers=...)
#   kafka_cluster.sh kill DIR ID     SIGKILL one node
#   kafka_cluster.sh start DIR ID    starts one node again with its data
#   kafka_cluster.sh down DIR        SIGTERM every node, SIGKILL after 30 s
# Each node lives in DIR/node-ID/ (server.properties, data/, out.log, pid). The JVMs get
# what Kafka's own scripts give a broker: -Xmx1G -Xms1G and kafka-run-class.sh's G1
# settings. Kafka's jars carry no SLF4J binding, so the brokers log nothing (out.log has
# only what the JVM prints).
# Extra server properties: KAFKA_CLUSTER_PROPERTIES (lines key=value), for every node.
set -euo pipefail
PEERS=${STRATA_PEERS_DIR:-$HOME/.cache/strata-peers}
[[ -f $PEERS/peers.env ]] || { echo "no test peers in $PEERS: bash scripts/install-peers.sh" >&2; exit 1; }
KAFKA_LIBS=$(sed -n 's/^KAFKA_LIBS=//p' "$PEERS/peers.env")
JVM_OPTS=(-Xmx1G -Xms1G -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
  -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true)

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
tool() { java -cp "$KAFKA_LIBS/*" "$@" 2> /dev/null; }

start_node() {
  local dir=$1 id=$2
  (cd "$dir/node-$id" && exec java "${JVM_OPTS[@]}" -cp "$KAFKA_LIBS/*" kafka.Kafka server.properties \
     > out.log 2>&1 < /dev/null) &
  echo $! > "$dir/node-$id/pid"
}

up() {
  local dir=$1 n=${2:-3} voters="" cid id
  mkdir -p "$dir"
  declare -A broker_port controller_port
  for id in $(seq "$n"); do
    broker_port[$id]=$(free_port)
    controller_port[$id]=$(free_port)
    voters+="${voters:+,}$id@127.0.0.1:${controller_port[$id]}"
  done
  cid=$(tool kafka.tools.StorageTool random-uuid)
  local bootstrap=""
  for id in $(seq "$n"); do
    mkdir -p "$dir/node-$id/data"
    cat > "$dir/node-$id/server.properties" <<PROPS
process.roles=broker,controller
node.id=$id
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:${broker_port[$id]},CONTROLLER://127.0.0.1:${controller_port[$id]}
advertised.listeners=PLAINTEXT://127.0.0.1:${broker_port[$id]}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/node-$id/data
offsets.topic.replication.factor=$((n < 3 ? n : 3))
transaction.state.log.replication.factor=$((n < 3 ? n : 3))
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
${KAFKA_CLUSTER_PROPERTIES:-}
PROPS
    tool kafka.tools.StorageTool format -t "$cid" -c "$dir/node-$id/server.properties" > /dev/null
    bootstrap+="${bootstrap:+,}127.0.0.1:${broker_port[$id]}"
  done
  for id in $(seq "$n"); do start_node "$dir" "$id"; done
  printf 'bootstrap.servers=%s\ncluster.id=%s\n' "$bootstrap" "$cid" > "$dir/cluster.env"
  for _ in $(seq 120); do
    if [[ $(tool org.apache.kafka.tools.BrokerApiVersionsCommand --bootstrap-server "$bootstrap" |
            grep -c '(id: [0-9]* rack') == "$n" ]] &&
       tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-server "$bootstrap" describe --status |
         grep -q '^LeaderId:[[:space:]]*[0-9]'; then
      cat "$dir/cluster.env"
      return 0
    fi
    sleep 1
  done
  echo "kafka_cluster: the cluster in $dir did not come up" >&2
  tail -5 "$dir"/node-*/out.log >&2
  return 1
}

down() {
  local dir=$1 pid f
  for f in "$dir"/node-*/pid; do
    [[ -f $f ]] && kill "$(cat "$f")" 2> /dev/null || true
  done
  for f in "$dir"/node-*/pid; do
    [[ -f $f ]] || continue
    pid=$(cat "$f")
    # Gone, or a zombie (exited; init reaps it later): either way its ports are free.
    for _ in $(seq 300); do
      kill -0 "$pid" 2> /dev/null && [[ "$(sed 's/.*) //' "/proc/$pid/stat" 2> /dev/null | cut -d' ' -f1)" != Z ]] || break
      sleep 0.1
    done
    kill -9 "$pid" 2> /dev/null || true
    rm -f "$f"
  done
}

case "${1:-}" in
  up) up "${2:?DIR}" "${3:-3}" ;;
  kill) kill -9 "$(cat "${2:?DIR}/node-${3:?ID}/pid")"; rm -f "$2/node-$3/pid" ;;
  start) start_node "${2:?DIR}" "${3:?ID}" ;;
  down) down "${2:?DIR}" ;;
  *) sed -n '2,15p' "$0" >&2; exit 2 ;;
esac
