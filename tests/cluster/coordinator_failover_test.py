#!/usr/bin/python3
"""Group coordinator failover with real processes (issue 17): 1 controller, 3 brokers,
__consumer_offsets of 6 partitions at RF 3, a 6-partition topic at RF 3.

An idempotent acks=all producer writes continuously; a group of two confluent-kafka
consumers reads it and commits synchronously after processing each 200 records. The
broker that coordinates the group (the leader of its __consumer_offsets partition) is
killed with kill -9 while they consume. Then:
  * the consumers find the new coordinator and go on (records produced after the kill
    are consumed, commits succeed again);
  * no committed offset is lost: with commits paused around the kill, the new
    coordinator answers every offset committed before it, and later ones only move on;
  * every acknowledged record is consumed at least once; with commits after processing
    nothing is skipped: every offset below a committed one was processed, and a fresh
    member of the group resumes exactly at the committed offsets (records it reads again
    were processed but not committed when the members left during a rebalance).

Usage: coordinator_failover_test.py <bin dir> <strata-cluster>
"""

import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replication_harness import Cluster, TestFailed, log  # noqa: E402

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402

TOPIC = "events"
PARTITIONS = 6
GROUP = "failover"
RATE = 500  # records per second

overrides = {
    "broker.session.timeout.ms": 2000,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 100,
    "group.initial.rebalance.delay.ms": 0,
    "offsets.topic.num.partitions": 6,
}


class Writer:
    """An idempotent acks=all producer at RATE records per second; acked holds what was acknowledged,
    where holds the (partition, offset) each was acknowledged at."""

    def __init__(self, cluster):
        self.producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "enable.idempotence": True,
                                  "linger.ms": 5, "message.timeout.ms": 60000})
        self.acked = set()
        self.where = {}
        self.failed = []
        self.sent = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def delivered(self, err, msg):
        with self.lock:
            if err:
                self.failed.append(str(err))
            else:
                self.acked.add(msg.value().decode())
                self.where[msg.value().decode()] = (msg.partition(), msg.offset())

    def run(self):
        start = time.monotonic()
        while not self.stopping.is_set():
            due = int((time.monotonic() - start) * RATE)
            while self.sent < due:
                self.producer.produce(TOPIC, value=f"e-{self.sent}".encode(), on_delivery=self.delivered)
                self.sent += 1
            self.producer.poll(0.01)

    def stop(self):
        self.stopping.set()
        self.thread.join()
        left = self.producer.flush(60)
        if left:
            raise TestFailed(f"{left} records still unacknowledged 60 s after the producer stopped")


class Member:
    """A group member: polls, records what it processed, commits synchronously every 200 records."""

    def __init__(self, cluster, name):
        self.name = name
        self.consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": GROUP,
                                  "auto.offset.reset": "earliest", "enable.auto.commit": False,
                                  "session.timeout.ms": 10000, "heartbeat.interval.ms": 500})
        self.consumer.subscribe([TOPIC])
        self.processed = []
        self.positions = set()  # (partition, offset) processed
        self.commits_ok = 0
        self.commits_failed = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.committing = threading.Event()  # cleared: commits wait (around the kill)
        self.committing.set()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        since_commit = 0
        while not self.stopping.is_set():
            msg = self.consumer.poll(0.2)
            if msg is None or msg.error():
                continue
            with self.lock:
                self.processed.append(msg.value().decode())
                self.positions.add((msg.partition(), msg.offset()))
            since_commit += 1
            if since_commit >= 200 and self.committing.is_set():
                since_commit = 0
                self.commit()
        self.commit()

    def commit(self):
        try:
            self.consumer.commit(asynchronous=False)
        except KafkaException as e:
            if e.args[0].code() != -168:  # _NO_OFFSET: nothing new to commit
                with self.lock:
                    self.commits_failed.append(str(e.args[0]))
            return
        with self.lock:
            self.commits_ok += 1

    def stop(self):
        self.stopping.set()
        self.thread.join()
        self.consumer.close()


def committed_offsets(cluster):
    """The group's committed offsets as its coordinator answers them (OffsetFetch)."""
    check = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": GROUP, "enable.auto.commit": False})
    try:
        return {tp.partition: tp.offset for tp in
                check.committed([TopicPartition(TOPIC, p) for p in range(PARTITIONS)], timeout=20)}
    except KafkaException as e:  # the coordinator moving: asked again
        log(f"OffsetFetch: {e}")
        return None
    finally:
        check.close()


def coordinator_of(cluster):
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    try:
        groups = admin.list_groups(GROUP, timeout=10)
    except KafkaException:  # asks every broker, and one is down
        return None
    if not groups or groups[0].state != "Stable":
        return None
    return groups[0].broker.id


def main():
    with Cluster(sys.argv[1], sys.argv[2], "coordinator-failover", overrides=overrides, budget_s=200,
                 controllers=1) as cluster:
        cluster.create_topic(TOPIC, PARTITIONS, 3)
        writer = Writer(cluster)
        members = [Member(cluster, "a"), Member(cluster, "b")]
        processed = lambda: sum(len(m.processed) for m in members)  # noqa: E731
        cluster.wait_for("the group to consume and commit", lambda: processed() > 2000 and
                         all(m.commits_ok > 0 for m in members), 60,
                         state=lambda: [(len(m.processed), m.commits_ok, m.commits_failed[-1:]) for m in members])
        coordinator = cluster.wait_for("the group's coordinator", lambda: coordinator_of(cluster), 30)
        # Commits pause around the kill, so that what the new coordinator loaded is what is
        # read back (the members' next commits would hide a lost offset).
        for m in members:
            m.committing.clear()
        before = committed_offsets(cluster)
        commits_before = sum(m.commits_ok for m in members)
        log(f"coordinator is broker {coordinator}; committed before the kill: {before}")
        cluster.kill9(coordinator)
        killed_at = writer.sent

        cluster.wait_for("another broker to coordinate the group",
                         lambda: (coordinator_of(cluster) or coordinator) != coordinator, 60)
        loaded = cluster.wait_for("the new coordinator to answer the committed offsets",
                                  lambda: committed_offsets(cluster), 60)
        lost = {p: (o, loaded.get(p)) for p, o in before.items() if loaded.get(p, -1) < o}
        cluster.check(not lost, f"the new coordinator lost committed offsets (before the kill, after): {lost}")
        for m in members:
            m.committing.set()
        cluster.wait_for("the consumers to read past the kill and commit again",
                         lambda: any(int(v.split("-")[1]) > killed_at + 2000 for m in members for v in m.processed)
                         and sum(m.commits_ok for m in members) > commits_before + 4, 60,
                         state=lambda: [(len(m.processed), m.commits_ok, m.commits_failed[-1:]) for m in members])
        writer.stop()
        acked = set(writer.acked)

        def missing():
            """What is missing, by partition: how many, and the first and last offset."""
            gone = acked - {v for m in members for v in list(m.processed)}
            by_partition = {}
            for v in gone:
                p, o = writer.where[v]
                n, lo, hi = by_partition.get(p, (0, o, o))
                by_partition[p] = (n + 1, min(lo, o), max(hi, o))
            return f"{len(gone)} missing (partition: count, first and last offset): {by_partition}"

        cluster.wait_for("every acknowledged record to be consumed",
                         lambda: acked <= {v for m in members for v in list(m.processed)}, 60, state=missing)
        for m in members:
            m.stop()

        # Nor later: the committed offsets only moved forward.
        after = committed_offsets(cluster)
        back = {p: (o, after.get(p)) for p, o in before.items() if after.get(p, -1) < o}
        cluster.check(not back, f"committed offsets went back after the failover (before, after): {back}")

        # Commits after processing: every offset below the committed one was processed
        # (the producer is idempotent, without transactions: offsets have no gaps).
        processed_at = set().union(*[m.positions for m in members])
        skipped = {p: [o for o in range(max(after.get(p, 0), 0)) if (p, o) not in processed_at][:5]
                   for p in range(PARTITIONS)}
        cluster.check(not any(skipped.values()), f"offsets committed but never processed: {skipped}")
        # A fresh member resumes exactly at the committed offsets.
        fresh = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": GROUP, "auto.offset.reset": "earliest",
                          "enable.auto.commit": False})
        fresh.subscribe([TOPIC])
        firsts = {}
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            msg = fresh.poll(0.5)
            if msg is not None and not msg.error():
                firsts.setdefault(msg.partition(), msg.offset())
        fresh.close()
        cluster.check(all(o == after.get(p) for p, o in firsts.items()),
                      f"a fresh member started at {firsts}, not at the committed offsets {after}")
        failed = [f for m in members for f in m.commits_failed]
        log(f"{len(acked)} acknowledged records, {sum(len(m.processed) for m in members)} processed, "
            f"{sum(m.commits_ok for m in members)} commits, {len(failed)} failed around the kill: {failed[:3]}")
        cluster.check(not writer.failed, f"{len(writer.failed)} records failed: {writer.failed[:3]}")
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
