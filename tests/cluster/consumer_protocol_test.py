#!/usr/bin/python3
"""KIP-848's consumer protocol with librdkafka (group.protocol=consumer; run with the
current confluent-kafka by tests/compat/with_librdkafka.sh): 1 controller and 3 brokers,
a 6-partition topic at RF 3.

1. Two members join one group: the broker splits the topic between them (three
   partitions each) and together they read every record once.
2. A member commits what it processed and closes; a new member resumes at the commits
   (nothing read twice, nothing skipped).
3. AdminClient.describe_consumer_groups (ConsumerGroupDescribe) and list_consumer_groups:
   the group's type is consumer, its state Stable, its members and their partitions.
4. A third member joins two: each of the two gives up only what moves (a partition each,
   never all of its partitions) and the three end with two each.
5. Static membership (group.instance.id): a member closes and a new one with its
   instance id gets its partitions back; the other member gives nothing up.
6. A subscription by regular expression (librdkafka sends it to the broker, which
   resolves it with RE2): the matching topic's partitions, then a new matching topic's.
7. kill -9 of the group's coordinator while two members read and commit: the next
   coordinator loads the group as it was (`strata groups describe`: same group epoch, both
   members Stable) and the members read every record written before and after the kill.

Usage: consumer_protocol_test.py <bin dir> <strata-cluster>
"""

import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replication_harness import Cluster, log  # noqa: E402

from confluent_kafka import Consumer, ConsumerGroupState, ConsumerGroupType, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402

TOPIC = "orders"
PARTITIONS = 6


def produce(cluster, start, count):
    p = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "linger.ms": 5})
    failed = []
    for i in range(start, start + count):
        p.produce(TOPIC, value=f"r-{i}".encode(), on_delivery=lambda err, msg: failed.append(err) if err else None)
        p.poll(0)
    left = p.flush(60)
    cluster.require(not left and not failed, f"{left} records not acknowledged, {len(failed)} failed")


class Member:
    """A consumer of the new protocol polling on its own thread; what it read and the
    assignment changes its callbacks saw."""

    def __init__(self, cluster, group, name, commit=False, instance=None):
        self.name = name
        self.read = []
        self.revoked = []
        self.lock = threading.Lock()
        self.assignment = set()
        conf = {"bootstrap.servers": cluster.bootstrap, "group.id": group, "group.protocol": "consumer",
                "auto.offset.reset": "earliest", "enable.auto.commit": False}
        if instance:
            conf["group.instance.id"] = instance
        self.consumer = Consumer(conf)
        self.consumer.subscribe([TOPIC], on_assign=self.on_assign, on_revoke=self.on_revoke)
        self.commit = commit
        self.stopping = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def on_assign(self, consumer, partitions):
        with self.lock:
            self.assignment |= {p.partition for p in partitions}

    def on_revoke(self, consumer, partitions):
        with self.lock:
            gone = {p.partition for p in partitions}
            if gone:
                self.revoked.append(gone)
            self.assignment -= gone

    def run(self):
        while not self.stopping:
            msg = self.consumer.poll(0.2)
            if msg is None or msg.error():
                continue
            with self.lock:
                self.read.append((msg.partition(), msg.offset(), msg.value().decode()))
            if self.commit:
                self.consumer.commit(message=msg, asynchronous=False)

    def partitions(self):
        with self.lock:
            return set(self.assignment)

    def values(self):
        with self.lock:
            return [v for _, _, v in self.read]

    def close(self):
        self.stopping = True
        self.thread.join(30)
        self.consumer.close()


def split(members, each):
    parts = [m.partitions() for m in members]
    return all(len(p) == each for p in parts) and len(set().union(*parts)) == PARTITIONS


def two_members(cluster):
    log("== two members split the topic and read every record once")
    a = Member(cluster, "kip848", "a", commit=True)
    b = Member(cluster, "kip848", "b", commit=True)
    try:
        cluster.wait_for("the two members to hold three partitions each", lambda: split([a, b], 3), 60,
                         state=lambda: [a.partitions(), b.partitions()])
        produce(cluster, 0, 6000)
        want = {f"r-{i}" for i in range(6000)}
        cluster.wait_for("the two to have read all 6000 records", lambda: set(a.values() + b.values()) >= want, 60,
                         state=lambda: [len(a.values()), len(b.values())])
        every = a.values() + b.values()
        cluster.check(len(every) == len(set(every)) == 6000,
                      f"the members read {len(every)} records, {len(set(every))} distinct, not 6000 once each")

        log("== describe_consumer_groups and list_consumer_groups")
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        described = admin.describe_consumer_groups(["kip848"])["kip848"].result(timeout=30)
        cluster.check(described.type == ConsumerGroupType.CONSUMER, f"the group's type is {described.type}")
        cluster.check(described.state == ConsumerGroupState.STABLE, f"the group's state is {described.state}")
        held = [{tp.partition for tp in m.assignment.topic_partitions} for m in described.members]
        cluster.check(len(described.members) == 2 and len(set().union(*held)) == PARTITIONS,
                      f"described members {[m.member_id for m in described.members]} hold {held}")
        listed = admin.list_consumer_groups(types={ConsumerGroupType.CONSUMER}).result(timeout=30)
        cluster.check([g.group_id for g in listed.valid] == ["kip848"],
                      f"list_consumer_groups of type consumer: {[g.group_id for g in listed.valid]}")
    finally:
        a.close()
        b.close()

    log("== a new member resumes at the commits")
    c = Member(cluster, "kip848", "c")
    try:
        produce(cluster, 6000, 600)
        cluster.wait_for("the new member to read the 600 new records", lambda: len(c.values()) >= 600, 60,
                         state=lambda: len(c.values()))
        cluster.check(sorted(c.values()) == sorted(f"r-{i}" for i in range(6000, 6600)),
                      f"the new member read {len(c.values())} records, not exactly the 600 after the commits")
    finally:
        c.close()


def third_member(cluster):
    log("== a third member joins two: each gives up only what moves")
    a = Member(cluster, "kip848-three", "a")
    b = Member(cluster, "kip848-three", "b")
    try:
        cluster.wait_for("two members with three partitions each", lambda: split([a, b], 3), 60,
                         state=lambda: [a.partitions(), b.partitions()])
        before = [(a.partitions(), len(a.revoked)), (b.partitions(), len(b.revoked))]
        c = Member(cluster, "kip848-three", "c")
        try:
            cluster.wait_for("three members with two partitions each", lambda: split([a, b, c], 2), 60,
                             state=lambda: [m.partitions() for m in (a, b, c)])
            for m, (had, revocations) in zip((a, b), before):
                since = m.revoked[revocations:]
                cluster.check(since == [had - m.partitions()] and len(since[0]) == 1,
                              f"member {m.name} had {had}, holds {m.partitions()}, gave up {since} since")
        finally:
            c.close()
    finally:
        a.close()
        b.close()


def static_members(cluster):
    log("== a static member comes back with its partitions")
    a = Member(cluster, "kip848-static", "a", instance="a")
    b = Member(cluster, "kip848-static", "b", instance="b")
    try:
        cluster.wait_for("two static members with three partitions each", lambda: split([a, b], 3), 60,
                         state=lambda: [a.partitions(), b.partitions()])
        had = a.partitions()
        b_revoked = list(b.revoked)
        a.close()  # a static member's close is a temporary leave (member epoch -2)
        a = Member(cluster, "kip848-static", "a2", instance="a")
        cluster.wait_for("the returning member to hold partitions", lambda: a.partitions(), 60,
                         state=lambda: a.partitions())
        cluster.check(a.partitions() == had, f"the returning static member got {a.partitions()}, it had {had}")
        cluster.check(b.revoked == b_revoked, f"the other member gave up {b.revoked[len(b_revoked):]}")
    finally:
        a.close()
        b.close()


def regex(cluster):
    log("== a regular expression subscription picks up a new topic")
    cluster.create_topic("rx-a", 2, 3)
    cluster.create_topic("other", 2, 3)
    c = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "kip848-regex", "group.protocol": "consumer",
                  "auto.offset.reset": "earliest"})
    try:
        c.subscribe(["^rx-.*"])
        def topics():
            c.poll(0.2)
            return sorted({(tp.topic, tp.partition) for tp in c.assignment()})
        cluster.wait_for("the member to hold rx-a's two partitions", lambda: topics() == [("rx-a", 0), ("rx-a", 1)],
                         60, state=topics)
        cluster.create_topic("rx-b", 1, 3)
        cluster.wait_for("the member to hold rx-b's partition too",
                         lambda: topics() == [("rx-a", 0), ("rx-a", 1), ("rx-b", 0)], 60, state=topics)
    finally:
        c.close()


def group_state(cluster, group):
    """(coordinator, group epoch, state, members) as `strata groups describe` shows them."""
    g = cluster.strata("groups", "describe", group, "--members")[0]
    return g["coordinator"], g.get("group_epoch"), g["state"], g["member_count"]


def coordinator_kill(cluster):
    log("== kill -9 of the coordinator while two members read and commit")
    a = Member(cluster, "kip848-failover", "a", commit=True)
    b = Member(cluster, "kip848-failover", "b", commit=True)
    killed = None
    try:
        cluster.wait_for("two members with three partitions each", lambda: split([a, b], 3), 60,
                         state=lambda: [a.partitions(), b.partitions()])
        produce(cluster, 10000, 3000)
        first = {f"r-{i}" for i in range(10000, 13000)}
        cluster.wait_for("the members to read the first 3000", lambda: set(a.values() + b.values()) >= first, 60,
                         state=lambda: [len(a.values()), len(b.values())])
        before = group_state(cluster, "kip848-failover")
        cluster.require(before[2] == "Stable" and before[3] == 2, f"the group before the kill: {before}")
        killed = before[0]
        log(f"killing broker {killed}, the coordinator, at group epoch {before[1]}")
        cluster.kill9(killed)
        produce(cluster, 13000, 3000)
        want = {f"r-{i}" for i in range(10000, 16000)}
        cluster.wait_for("the members to read all 6000 records", lambda: set(a.values() + b.values()) >= want, 90,
                         state=lambda: [len(a.values()), len(b.values())])
        after = group_state(cluster, "kip848-failover")
        cluster.check(after[0] != killed and after[1:] == before[1:],
                      f"the group after the kill: {after} (before: {before}): a member rejoined or was fenced")
    finally:
        a.close()
        b.close()
        if killed is not None:
            cluster.start(killed)


def main():
    with Cluster(sys.argv[1], sys.argv[2], "kip848", budget_s=220, controllers=1) as cluster:
        cluster.create_topic(TOPIC, PARTITIONS, 3)
        two_members(cluster)
        third_member(cluster)
        static_members(cluster)
        regex(cluster)
        coordinator_kill(cluster)
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
