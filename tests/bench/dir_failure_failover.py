"""Failover after a log dir failure (issue 13's figure): the time from the moment writes
into the partition leader's log dir start failing with EIO (the project's LD_PRELOAD fault
library) to the first acks=all produce acknowledged by the new leader, ten times.

3 controllers + 3 brokers (one log dir each), broker.session.timeout.ms 500. Each round:
a topic of 1 partition, RF 3, min.insync.replicas 2, warmed up with acks=all records by
the round's producer; the rule is armed and at once that producer sends one record with
acks=all (confluent-kafka, retry.backoff.ms 10): its first attempt meets the EIO, the leader's dir goes offline, the
controller moves the leadership, the client retries at the new leader. Two figures per round:
leadership_ms, from the failed broker's "is offline" log line to the new leader's "leads"
line (the broker and the controller: the server side), and ack_ms, from arming to that
record's acknowledgement (which adds the client's retry and metadata refresh). The failed
broker (its only dir gone) stops; it is restarted before the next round. Prints each round
and RESULT dir_failure_failover {"leadership_ms": {median, max}, "ack_ms": {median, max}, ...}.
librdkafka refreshes its metadata at once after the KAFKA_STORAGE_ERROR: the broker holds
that answer until its image names the new leader (produce_handler.cc), and a broker whose
every dir failed answers what it holds before it stops; answered earlier, the client was
told the old leader again and asked next at its 1 s leader re-query (ack_ms near 1 s).
The library re-reads its rules every few ms, so the first record may still go through to
the old leader: the round then produces again (the clock still runs from arming) until the
fault log shows the leader met the EIO.
FETCH_WAIT_MS sets replica.fetch.wait.max.ms; FAILOVER_CLIENT_DEBUG sets the producers'
librdkafka debug contexts (e.g. metadata,msg,broker), printed to stderr.
Usage: /usr/bin/python3 dir_failure_failover.py <bin dir> <strata-cluster> <libstrata_fault_preload.so> [rounds]
"""

import datetime
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cluster"))
from confluent_kafka import Producer  # noqa: E402
from replication_harness import Cluster, TestFailed, log, write_fault_rules  # noqa: E402

ROUNDS = int(sys.argv[4]) if len(sys.argv) > 4 else 10
overrides = {
    "broker.session.timeout.ms": 500,
    "broker.heartbeat.interval.ms": 100,
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 50,
    **({"replica.fetch.wait.max.ms": int(os.environ["FETCH_WAIT_MS"])} if "FETCH_WAIT_MS" in os.environ else {}),
}
CLIENT = {"acks": "all", "retry.backoff.ms": 10, "message.timeout.ms": 30000,
          "topic.metadata.refresh.fast.interval.ms": 10,
          **({"debug": os.environ["FAILOVER_CLIENT_DEBUG"], "log_level": 7}
             if os.environ.get("FAILOVER_CLIENT_DEBUG") else {})}


def log_time(cluster, node, pattern):
    """The time of the last line of node's server.log that matches pattern (a datetime)."""
    found = None
    for line in cluster.server_log(node).splitlines():
        if re.search(pattern, line):
            found = datetime.datetime.strptime(line[1:24], "%Y-%m-%d %H:%M:%S.%f")
    return found


faults = tempfile.mkdtemp(prefix="strata-failover-faults.")
rules = os.path.join(faults, "fault.rules")
fault_log = os.path.join(faults, "fault.log")


def faults_met(pid):
    """How many faults the process pid has met (the library's STRATA_FAULT_LOG lines)."""
    try:
        with open(fault_log) as f:
            return sum(1 for line in f if line.startswith(f"pid={pid} fault "))
    except FileNotFoundError:
        return 0


def send(producer, values, timeout=60):
    """Produces values to partition 0 of the round's topic; [(offset or None, error or None)]."""
    reports = [None] * len(values)

    def report(i):
        def on_delivery(err, msg):
            reports[i] = (msg.offset() if err is None else None, err)
        return on_delivery

    for i, value in enumerate(values):
        producer.produce(topic, value=value.encode(), partition=0, on_delivery=report(i))
    if producer.flush(timeout):
        raise TestFailed(f"no delivery report in {timeout} s")
    return reports


rounds = []
try:
    with Cluster(sys.argv[1], sys.argv[2], "dir-failure-failover", overrides, budget_s=60 + 30 * ROUNDS,
                 env={"LD_PRELOAD": os.path.abspath(sys.argv[3]), "STRATA_FAULT_RULES": rules,
                      "STRATA_FAULT_LOG": fault_log}) as cluster:
        for i in range(ROUNDS):
            topic = f"failover{i}"
            cluster.create_topic(topic, 1, 3, {"min.insync.replicas": 2})
            cluster.wait_for(f"{topic}'s ISR to be full", lambda: cluster.isr_full(topic), 30)
            # One producer per round, warmed up before the fault: a running client meets the
            # failure (a producer made at the fault would add librdkafka's own start-up: the
            # first metadata of a topic produced to at once can wait for its 1 s refresh).
            producer = Producer({"bootstrap.servers": cluster.bootstrap, "linger.ms": 5, "log_level": 2, **CLIENT})
            warm = send(producer, [f"warm-{n}" for n in range(20)])
            cluster.require(all(err is None for _, err in warm), f"{topic}: the warm-up produce failed")
            leader = cluster.partition(topic, 0)["leader"]
            pid = cluster.pid(leader)
            started = time.monotonic()
            write_fault_rules(rules, [f"write {cluster.dir}/node-{leader}/logs/ 0 max EIO"])
            attempts = 0
            while True:
                attempts += 1
                [(offset, err)] = send(producer, [f"after-{attempts}"])
                took_ms = (time.monotonic() - started) * 1000
                cluster.require(err is None, f"{topic}: the produce after the failure failed: {err}")
                if faults_met(pid) > 0:
                    break
                cluster.require(attempts < 100, f"{topic}: broker {leader} never met the armed fault")
            now = cluster.partition(topic, 0)["leader"]
            cluster.check(now != leader, f"{topic}: still led by broker {leader}, whose dir failed")
            failed_at = log_time(cluster, leader, r"Log dir .* is offline")
            led_at = log_time(cluster, now, rf"{topic}-0 leads in leader epoch")
            cluster.require(failed_at and led_at, f"{topic}: no offline line on {leader} or leads line on {now}")
            leadership_ms = (led_at - failed_at).total_seconds() * 1000
            rounds.append({"leadership_ms": round(leadership_ms, 1), "ack_ms": round(took_ms, 1)})
            log(f"round {i}: broker {leader}'s dir failed; broker {now} led {leadership_ms:.0f} ms later; the "
                f"produce was acknowledged {took_ms:.0f} ms after the fault was armed"
                + (f" ({attempts} records: the first went through before the rule took)" if attempts > 1 else ""))
            write_fault_rules(rules, [])
            cluster.wait_for(f"broker {leader} to stop (its only log dir failed)", lambda: cluster.exited(pid), 20)
            cluster.note_stop(leader)
            cluster.start(leader)
            cluster.wait_for("the cluster to settle", lambda: cluster.settled(topic), 60)
finally:
    shutil.rmtree(faults, ignore_errors=True)
if rounds:
    figures = {k: {"median": statistics.median(r[k] for r in rounds), "max": max(r[k] for r in rounds)}
               for k in ("leadership_ms", "ack_ms")}
    print("RESULT dir_failure_failover " + json.dumps({**figures, "rounds": rounds}))
sys.exit(cluster.exit_code())
