"""A failed log dir among several (JBOD), by EIO and by a full disk, while an acks=all
producer runs (issue 13).

3 controllers + 3 brokers, each with two log dirs (strata-cluster --log-dirs 2), every
node running with the project's LD_PRELOAD fault library (tests/fault_preload); topic
`jbod`: 8 partitions, RF 3, min.insync.replicas 2; an idempotent acks=all producer runs
throughout.
  * EIO: writes and fsyncs into broker A's first log dir fail. That dir goes offline: the
    controller shows it, the partitions whose replica on A is there lose A as leader and
    ISR member; the partitions on A's other dir keep A as leader in the same leader epoch
    (they never moved or paused for a new leader), and A keeps running.
  * ENOSPC: then writes into broker B's second log dir fail as on a full disk: the same,
    for B.
  * Afterwards every acknowledged record is in the partition once, at its acknowledged
    offset, in production order, and the producer saw no failed delivery.
Usage: /usr/bin/python3 log_dir_failure_test.py <bin dir> <strata-cluster> <libstrata_fault_preload.so>
"""

import os
import shutil
import sys
import tempfile

from replication_harness import Cluster, NumberedProducer, check_every_acknowledged, log, write_fault_rules

TOPIC = "jbod"
PARTITIONS = 8

overrides = {
    "broker.session.timeout.ms": 2000,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 100,
}


def arm(cluster, rules):
    """Replaces the fault rules every node reads."""
    write_fault_rules(cluster.fault_rules, rules)


def fired(cluster, errno_name, path):
    try:
        with open(cluster.fault_log) as f:
            return any(f" fault {errno_name} " in line and path in line for line in f)
    except FileNotFoundError:
        return False


def fail_dir(cluster, producer, broker, dir_index, errno_name, rules):
    """Arms rules for one log dir of broker; checks what must follow. Returns the dir."""
    log_dir = cluster.log_dir_paths(broker)[dir_index]
    on_failed = {p for p in range(PARTITIONS) if os.path.isdir(os.path.join(log_dir, f"{TOPIC}-{p}"))}
    cluster.require(on_failed and len(on_failed) < PARTITIONS,
                    f"broker {broker}'s {log_dir} holds {sorted(on_failed)}: the test needs some, not all")
    before = {p["partition"]: p for p in cluster.partitions(TOPIC)}
    acked = producer.acked_count()
    arm(cluster, [rule.format(dir=log_dir + "/") for rule in rules])
    cluster.wait_for(f"the {errno_name} faults to fire in {log_dir}", lambda: fired(cluster, errno_name, log_dir), 30)
    cluster.wait_for(f"broker {broker} to report {log_dir} offline",
                     lambda: cluster.broker_state(broker)["offline_log_dirs"] == 1, 20)
    cluster.wait_for(f"the partitions of {log_dir} to leave broker {broker}",
                     lambda: all(p["leader"] not in (broker, -1) and broker not in p["isr"]
                                 for p in cluster.partitions(TOPIC) if p["partition"] in on_failed), 30,
                     state=lambda: cluster.cluster_state(TOPIC))
    cluster.check(cluster.running(broker), f"broker {broker} stopped with one of its two log dirs left")
    for p in cluster.partitions(TOPIC):
        if p["partition"] in on_failed:
            continue
        was = before[p["partition"]]
        cluster.check(p["leader"] == was["leader"] and p["leader_epoch"] == was["leader_epoch"],
                      f"{TOPIC}-{p['partition']} (not in {log_dir}) moved: leader {was['leader']} epoch "
                      f"{was['leader_epoch']} -> leader {p['leader']} epoch {p['leader_epoch']}")
        cluster.check(broker in p["isr"], f"{TOPIC}-{p['partition']} (not in {log_dir}) dropped broker {broker} "
                                          f"from its ISR {p['isr']}")
    arm(cluster, [])
    cluster.wait_for("the producer to go on", lambda: producer.acked_at_least(acked + 500), 30)
    log(f"{errno_name} in broker {broker}'s {log_dir}: partitions {sorted(on_failed)} moved off it, the others stayed")


def run(cluster):
    cluster.create_topic(TOPIC, PARTITIONS, 3, {"min.insync.replicas": 2})
    producer = NumberedProducer(cluster.bootstrap, TOPIC, PARTITIONS, "j", {"enable.idempotence": True},
                                rate=400).start()
    cluster.wait_for("the producer to start", lambda: producer.acked_at_least(500), 30)
    a, b = cluster.brokers[0], cluster.brokers[1]
    fail_dir(cluster, producer, a, 0, "EIO", ["write {dir} 0 max EIO", "sync {dir} 0 max EIO"])
    fail_dir(cluster, producer, b, 1, "ENOSPC", ["write {dir} 0 max ENOSPC"])
    check_every_acknowledged(cluster, producer, TOPIC, PARTITIONS)


lib = os.path.abspath(sys.argv[3])
faults = tempfile.mkdtemp(prefix="strata-log-dir-failure-faults.")  # known before the nodes start
try:
    with Cluster(sys.argv[1], sys.argv[2], "log-dir-failure", overrides, budget_s=150, log_dirs=2,
                 env={"LD_PRELOAD": lib, "STRATA_FAULT_RULES": os.path.join(faults, "fault.rules"),
                      "STRATA_FAULT_LOG": os.path.join(faults, "fault.log")}) as cluster:
        cluster.fault_rules = os.path.join(faults, "fault.rules")
        cluster.fault_log = os.path.join(faults, "fault.log")
        run(cluster)
finally:
    shutil.rmtree(faults, ignore_errors=True)
sys.exit(cluster.exit_code())
