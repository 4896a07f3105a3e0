"""The idempotence scenario's cut-off leaders against Apache Kafka, for comparison
(docs/idempotence.md, "Against Apache Kafka"): not a test of Strata, a run whose RESULT
line is set beside idempotence_partition_test.py's.

Apache Kafka 4.4.0 (the jars of scripts/install-peers.sh), 3 nodes in KRaft combined mode,
each in a network namespace of its own (netns_cluster.Network: the same hub, addresses and
blackhole cuts as the Strata test), the clients in one more; topic `idempotence`: 3
partitions, RF 3, min.insync.replicas 2; the same overrides as the Strata run
(replica.lag.time.max.ms 2000, replica.fetch.backoff.ms 100). The same idempotent
confluent-kafka producer (NumberedProducer: acks=all, linger.ms 2, 2,000 values a second)
goes through FAULTS (default 6) seeded faults of the Strata test's kinds:
  * leader/reachable: the leader of a random partition cut off from the other nodes while
    the clients still reach it;
  * leader/full:      the same, cut off from the clients too;
  * pause/leader:     the leader of a random partition stopped (SIGSTOP), then continued;
  * pause/follower:   a follower of a random partition likewise;
a cut held longer than the broker session (broker.session.timeout.ms, 9 s in both), a
pause 1 to 6 s, then healed, and the cluster waited for until every ISR is whole again;
after a seeded half of the faults the preferred leaders are elected again while the
producer goes on (kafka-leader-election, as the Strata test's rebalance). Afterwards every
record of the topic is read (from the leaders, to the high watermarks): each acknowledged
value must be there once. The last line counts the run: faults, acknowledged, lost,
doubled. Run with either librdkafka (tests/compat/with_librdkafka.sh).
Usage: /usr/bin/python3 kafka_idempotence_partition.py   (as root; STRATA_TEST_SEED, FAULTS)
"""

import collections
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cluster"))

from confluent_kafka import Consumer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from netns_cluster import CLIENT, Network, skip_unless_netns  # noqa: E402
from replication_harness import NumberedProducer, TestFailed, log, seeded_random  # noqa: E402

TOPIC = "idempotence"
PARTITIONS = 3
NODES = [1, 2, 3]
FAULTS = int(os.environ.get("FAULTS", "6"))
SESSION_S = 9
PEERS = os.environ.get("STRATA_PEERS_DIR", os.path.expanduser("~/.cache/strata-peers"))
JVM = ["-Xmx1G", "-Xms1G", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true"]


def kafka_libs():
    with open(os.path.join(PEERS, "peers.env")) as f:
        return dict(line.strip().split("=", 1) for line in f if "=" in line)["KAFKA_LIBS"]


class KafkaNodes:
    """The Kafka JVMs, one per node namespace; each keeps its data in work/node-<id>."""

    def __init__(self, network, work):
        self.network = network
        self.work = work
        self.libs = kafka_libs() + "/*"
        self.procs = {}
        self.bootstrap = ",".join(f"{network.host(n)}:9092" for n in NODES)

    def format_and_start(self):
        voters = ",".join(f"{n}@{self.network.host(n)}:9093" for n in NODES)
        cid = subprocess.run(["java", "-cp", self.libs, "kafka.tools.StorageTool", "random-uuid"],
                             capture_output=True, text=True, check=True).stdout.strip()
        for n in NODES:
            d = os.path.join(self.work, f"node-{n}")
            os.makedirs(os.path.join(d, "data"))
            host = self.network.host(n)
            with open(os.path.join(d, "server.properties"), "w") as f:
                f.write(f"process.roles=broker,controller\nnode.id={n}\ncontroller.quorum.voters={voters}\n"
                        f"listeners=PLAINTEXT://{host}:9092,CONTROLLER://{host}:9093\n"
                        f"advertised.listeners=PLAINTEXT://{host}:9092\ncontroller.listener.names=CONTROLLER\n"
                        "inter.broker.listener.name=PLAINTEXT\n"
                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT\n"
                        f"log.dirs={d}/data\noffsets.topic.replication.factor=3\n"
                        "replica.lag.time.max.ms=2000\nreplica.fetch.backoff.ms=100\n")
            subprocess.run(["java", "-cp", self.libs, "kafka.tools.StorageTool", "format", "-t", cid, "-c",
                            os.path.join(d, "server.properties")], capture_output=True, check=True)
        for n in NODES:
            d = os.path.join(self.work, f"node-{n}")
            out = open(os.path.join(d, "out.log"), "w")
            self.procs[n] = subprocess.Popen(
                ["ip", "netns", "exec", self.network.namespace(n), "java", *JVM, "-cp", self.libs, "kafka.Kafka",
                 os.path.join(d, "server.properties")], stdout=out, stderr=subprocess.STDOUT, cwd=d)

    def stop(self):
        for p in self.procs.values():
            p.kill()
        for p in self.procs.values():
            p.wait()


class Waits:
    """wait_for as the harness's Cluster has it, for NumberedProducer.goes_on."""

    def wait_for(self, what, condition, timeout, state=None):
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TestFailed(f"{what}: not within {timeout} s" + (f" ({state()})" if state else ""))
            time.sleep(0.1)


def partitions(admin):
    md = admin.list_topics(TOPIC, timeout=10).topics[TOPIC]
    return [{"leader": p.leader, "replicas": list(p.replicas), "isr": list(p.isrs)}
            for _, p in sorted(md.partitions.items())]


def healthy(admin):
    try:
        parts = partitions(admin)
    except Exception:  # noqa: BLE001  a metadata request that fails: not yet
        return False
    return len(parts) == PARTITIONS and all(p["leader"] >= 0 and len(p["isr"]) == 3 for p in parts)


def brokers_up(admin):
    try:
        return len(admin.list_topics(timeout=5).brokers) == len(NODES)
    except Exception:  # noqa: BLE001  still starting
        return False


def read_all(bootstrap):
    """Every record of the topic, per partition, to the high watermarks."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "reader", "enable.auto.commit": False})
    stored = collections.Counter()
    for p in range(PARTITIONS):
        low, high = c.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=30)
        c.assign([TopicPartition(TOPIC, p, low)])
        position = low
        deadline = time.monotonic() + 120
        while position < high and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None or m.error():
                continue
            stored[m.value().decode()] += 1
            position = m.offset() + 1
        if position < high:
            raise TestFailed(f"partition {p}: read to {position} of {high}")
    c.close()
    return stored


def main():
    skip_unless_netns()
    rng = seeded_random("kafka idempotence")
    network = Network(NODES)
    work = f"/tmp/kafka-idempotence-{os.getpid()}"
    nodes = None
    try:
        network.create()
        network.enter_client()
        nodes = KafkaNodes(network, work)
        nodes.format_and_start()
        admin = AdminClient({"bootstrap.servers": nodes.bootstrap})
        waits = Waits()
        waits.wait_for("the Kafka nodes", lambda: brokers_up(admin), 120)
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, 3, config={"min.insync.replicas": "2"})])[TOPIC].result()
        waits.wait_for("the topic", lambda: healthy(admin), 60)
        producer = NumberedProducer(nodes.bootstrap, TOPIC, PARTITIONS, "idem",
                                    {"enable.idempotence": True, "linger.ms": 2, "request.timeout.ms": 10000},
                                    rate=2000).start()
        waits.wait_for("the first 1000 acknowledgements", lambda: producer.acked_at_least(1000), 30)
        for fault in range(FAULTS):
            kind = rng.choice(["leader/reachable", "leader/full", "pause/leader", "pause/follower"])
            parts = partitions(admin)
            p = parts[rng.randrange(PARTITIONS)]
            node = rng.choice([r for r in p["replicas"] if r != p["leader"]]) if kind == "pause/follower" \
                else p["leader"]
            hold_s = rng.uniform(SESSION_S + 0.5, SESSION_S + 4) if kind.startswith("leader") else rng.uniform(1, 6)
            log(f"fault {fault + 1}/{FAULTS}: {kind} on node {node} for {hold_s:.1f} s (leaders "
                f"{[p['leader'] for p in parts]}); {producer.acked_count()} acknowledged so far")
            if kind.startswith("pause"):
                nodes.procs[node].send_signal(signal.SIGSTOP)
            else:
                others = [n for n in NODES if n != node] + ([CLIENT] if kind == "leader/full" else [])
                network.set_cuts({frozenset({node, o}) for o in others})
            time.sleep(hold_s)
            if kind.startswith("pause"):
                nodes.procs[node].send_signal(signal.SIGCONT)
            else:
                network.set_cuts(set())
            waits.wait_for(f"the cluster healthy again after fault {fault + 1}", lambda: healthy(admin), 120,
                           lambda: partitions(admin))
            producer.goes_on(waits, f"produce to go on after fault {fault + 1}", 300, 60)
            if rng.random() < 0.5:
                subprocess.run(["java", "-cp", nodes.libs, "org.apache.kafka.tools.LeaderElectionCommand",
                                "--bootstrap-server", nodes.bootstrap, "--election-type", "preferred",
                                "--all-topic-partitions"], capture_output=True, timeout=120)
                log(f"fault {fault + 1}: preferred leaders elected again")
        left = producer.stop()
        stored = read_all(nodes.bootstrap)
        with producer.lock:
            acked = dict(producer.acked)
            failed = dict(producer.failed)
        doubled = sum(1 for count in stored.values() if count > 1)
        lost = sum(1 for n in acked if stored[producer.value(n).decode()] == 0)
        log(f"RESULT kafka_idempotence faults={FAULTS} sent={producer.sent} acknowledged={len(acked)} "
            f"failed={len(failed)} undelivered={left} lost={lost} doubled={doubled} fatal={producer.fatal is not None}")
    finally:
        if nodes is not None:
            nodes.stop()
        network.destroy()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
