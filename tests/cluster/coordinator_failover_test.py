#!/usr/bin/python3
"""Group coordinator failover with real processes (issue 17): 1 controller, 3 brokers,
__consumer_offsets of 6 partitions at RF 3, a 6-partition topic at RF 3.

An idempotent acks=all producer writes continuously; a group of two confluent-kafka
consumers reads it and commits synchronously after processing each 200 records. The
broker that coordinates the group (the leader of its __consumer_offsets partition) is
killed with kill -9 while they consume. Then:
  * the consumers find the new coordinator and go on (records produced after the kill
    are consumed, commits succeed again);
  * no committed offset is lost: every offset committed before the kill is still
    committed (or a later one) at the new coordinator;
  * every acknowledged record is consumed at least once, and a fresh consumer of the
    group started at the end resumes at the committed offsets: with commits after
    processing nothing is skipped.

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
    """An idempotent acks=all producer at RATE records per second; acked holds what was acknowledged."""

    def __init__(self, cluster):
        self.producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "enable.idempotence": True,
                                  "linger.ms": 5, "message.timeout.ms": 60000})
        self.acked = set()
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
        self.commits_ok = 0
        self.commits_failed = []
        self.committed_ever = {}  # partition -> the highest offset a successful commit named
        self.lock = threading.Lock()
        self.stopping = threading.Event()
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
            since_commit += 1
            if since_commit >= 200:
                since_commit = 0
                self.commit()
        self.commit()

    def commit(self):
        try:
            offsets = self.consumer.commit(asynchronous=False)
        except KafkaException as e:
            if e.args[0].code() != -168:  # _NO_OFFSET: nothing new to commit
                with self.lock:
                    self.commits_failed.append(str(e.args[0]))
            return
        with self.lock:
            self.commits_ok += 1
            for tp in offsets or []:
                if tp.error is None and tp.offset >= 0:
                    self.committed_ever[tp.partition] = max(self.committed_ever.get(tp.partition, -1), tp.offset)

    def stop(self):
        self.stopping.set()
        self.thread.join()
        self.consumer.close()


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
        with_lock = [dict(m.committed_ever) for m in members]
        before = {}
        for c in with_lock:
            for p, o in c.items():
                before[p] = max(before.get(p, -1), o)
        commits_before = sum(m.commits_ok for m in members)
        log(f"coordinator is broker {coordinator}; committed before the kill: {before}")
        cluster.kill9(coordinator)
        killed_at = writer.sent

        cluster.wait_for("another broker to coordinate the group",
                         lambda: (coordinator_of(cluster) or coordinator) != coordinator, 60)
        cluster.wait_for("the consumers to read past the kill and commit again",
                         lambda: any(int(v.split("-")[1]) > killed_at + 2000 for m in members for v in m.processed)
                         and sum(m.commits_ok for m in members) > commits_before + 4, 60,
                         state=lambda: [(len(m.processed), m.commits_ok, m.commits_failed[-1:]) for m in members])
        writer.stop()
        acked = set(writer.acked)
        cluster.wait_for("every acknowledged record to be consumed",
                         lambda: acked <= {v for m in members for v in list(m.processed)}, 60,
                         state=lambda: f"{len(acked - {v for m in members for v in list(m.processed)})} missing")
        for m in members:
            m.stop()

        # No committed offset was lost with the coordinator.
        check = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": GROUP, "enable.auto.commit": False})
        after = {tp.partition: tp.offset for tp in
                 check.committed([TopicPartition(TOPIC, p) for p in range(PARTITIONS)], timeout=20)}
        check.close()
        lost = {p: (o, after.get(p)) for p, o in before.items() if after.get(p, -1) < o}
        cluster.check(not lost, f"committed offsets went back after the failover (before, after): {lost}")

        # A fresh member resumes at the committed offsets and finds nothing left: nothing skipped.
        fresh = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": GROUP, "auto.offset.reset": "earliest",
                          "enable.auto.commit": False})
        fresh.subscribe([TOPIC])
        tail = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            msg = fresh.poll(0.5)
            if msg is not None and not msg.error():
                tail.append((msg.partition(), msg.offset()))
        fresh.close()
        cluster.check(not tail, f"a fresh member read {len(tail)} records past the committed offsets: {tail[:5]}")
        failed = [f for m in members for f in m.commits_failed]
        log(f"{len(acked)} acknowledged records, {sum(len(m.processed) for m in members)} processed, "
            f"{sum(m.commits_ok for m in members)} commits, {len(failed)} failed around the kill: {failed[:3]}")
        cluster.check(not writer.failed, f"{len(writer.failed)} records failed: {writer.failed[:3]}")
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
