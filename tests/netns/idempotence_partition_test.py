"""An idempotent producer through cut-off leaders and paused brokers: nothing acknowledged
is lost, and nothing is stored twice.

3 controllers + 3 brokers, each in a network namespace of its own (netns_cluster.py), the
test's clients in one more; topic `idempotence`: 3 partitions, RF 3, min.insync.replicas
2. An idempotent confluent-kafka producer (acks=all, linger.ms 2, values spread over the
3 partitions) sends numbered values at a steady rate through FAULTS (default 6) faults
drawn with a seed (printed; STRATA_TEST_SEED=N repeats the choices, which also depend on
who leads at the time):
  * leader/reachable: the leader of a random partition is cut off from every other node
    while the clients still reach it (a leader that takes writes it cannot replicate);
  * leader/full:      the same, cut off from the clients too;
  * pause/leader:     the leader of a random partition is stopped (SIGSTOP), then continued;
  * pause/follower:   a follower of a random partition likewise.
Each fault is held for a seeded time (a cut longer than the broker session, so that a new
leader is elected; a pause shorter or longer), then healed; once the cluster is healthy
again, a seeded half of the faults also move leadership back to the preferred leaders
while the producer goes on (a second leader change with requests in flight).
Afterwards (check_after_chaos, as partition_chaos_test.py): every replica holds the same
log, each acknowledged value once at its acknowledged offset and in production order, no
delivery failure. The last line counts the run: faults, acknowledged, lost, doubled.

librdkafka answers an OUT_OF_ORDER_SEQUENCE_NUMBER behind an earlier failed request by
bumping the producer's epoch and sending every unacknowledged batch again from sequence
0 (KIP-360): a batch that a partition had stored but not acknowledged is then stored
twice. STRATA_RDKAFKA_DEBUG=eos,msg,topic (and STRATA_RDKAFKA_LOG=FILE) writes the
client's own account of each request to FILE, to follow such a case.
Usage: /usr/bin/python3 idempotence_partition_test.py <bin dir> <strata-cluster>
"""

import collections
import logging
import os
import signal
import sys

from netns_cluster import NetnsCluster, skip_unless_netns
from replication_harness import NumberedProducer, TailingConsumer, check_after_chaos, log, seeded_random

TOPIC = "idempotence"
PARTITIONS = 3
KINDS = ["leader/reachable", "leader/full", "pause/leader", "pause/follower"]
FAULTS = int(os.environ.get("STRATA_IDEMPOTENCE_FAULTS", "6"))
STALL_S = 25
REQUEST_TIMEOUT_MS = 10000

overrides = {
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 100,
}


def producer_config():
    config = {"enable.idempotence": True, "linger.ms": 2, "request.timeout.ms": REQUEST_TIMEOUT_MS}
    debug = os.environ.get("STRATA_RDKAFKA_DEBUG")
    if debug:
        logger = logging.getLogger("rdkafka")
        handler = logging.FileHandler(os.environ.get("STRATA_RDKAFKA_LOG", "rdkafka-debug.log"), mode="w")
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        config.update({"debug": debug, "logger": logger, "log_level": 7})
    return config


skip_unless_netns()
with NetnsCluster(sys.argv[1], sys.argv[2], "idempotence", overrides, budget_s=60 + 28 * FAULTS) as cluster:
    rng = seeded_random("idempotence")
    cluster.create_topic(TOPIC, PARTITIONS, 3, {"min.insync.replicas": 2})
    producer = NumberedProducer(cluster.bootstrap, TOPIC, PARTITIONS, "idem", producer_config(), rate=2000).start()
    tailing = TailingConsumer(cluster.bootstrap, TOPIC, PARTITIONS)
    cluster.wait_for("the first 1000 acknowledgements", lambda: producer.acked_at_least(1000), 30)
    session_s = int(cluster.setting(cluster.brokers[0], "broker.session.timeout.ms")) / 1000

    def victim(kind, parts):
        p = parts[rng.randrange(PARTITIONS)]
        if kind.endswith("follower"):
            return rng.choice([b for b in p["replicas"] if b != p["leader"]])
        return p["leader"]

    def goes_on(what):
        """A few hundred acknowledgements more (librdkafka found every leader again)."""
        producer.goes_on(cluster, f"produce to go on {what}", 300, STALL_S)

    for fault in range(FAULTS):
        kind = rng.choice(KINDS)
        parts = cluster.partitions(TOPIC)
        node = victim(kind, parts)
        hold_s = rng.uniform(session_s + 0.5, session_s + 4) if kind.startswith("leader") else rng.uniform(1, 6)
        log(f"fault {fault + 1}/{FAULTS}: {kind} on broker {node} for {hold_s:.1f} s (leaders "
            f"{[p['leader'] for p in parts]}); {producer.acked_count()} acknowledged so far")
        deadline = cluster.elapsed() + hold_s
        if kind.startswith("pause"):
            cluster.signal(node, signal.SIGSTOP)
        else:
            cluster.isolate(node, clients=kind == "leader/full")
        try:
            cluster.wait_for(f"fault {fault + 1} to be held {hold_s:.1f} s", lambda: cluster.elapsed() >= deadline,
                             hold_s + 5)
        finally:
            if kind.startswith("pause"):
                cluster.signal(node, signal.SIGCONT)
            else:
                cluster.heal()
        cluster.wait_for(f"the cluster healthy again after fault {fault + 1}", lambda: cluster.healthy(TOPIC), 60,
                         lambda: cluster.cluster_state(TOPIC))
        goes_on(f"after fault {fault + 1}")
        if rng.random() < 0.5:
            cluster.rebalance(TOPIC)
            log(f"fault {fault + 1}: preferred leaders lead again")

    final = check_after_chaos(cluster, TOPIC, PARTITIONS, producer, tailing, STALL_S)

    with producer.lock:
        acked = dict(producer.acked)
    stored = collections.Counter(value for records in final.values() for _, value in records)
    doubled = sum(1 for count in stored.values() if count > 1)
    lost = sum(1 for n in acked if stored[producer.value(n).decode()] == 0)
    log(f"RESULT idempotence faults={FAULTS} sent={producer.sent} acknowledged={len(acked)} lost={lost} "
        f"doubled={doubled} fatal={producer.fatal is not None}")

sys.exit(cluster.exit_code())
