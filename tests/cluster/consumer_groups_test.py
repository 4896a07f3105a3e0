#!/usr/bin/python3
"""Consumer groups with real clients and real processes (issue 17): 1 controller and 3
brokers, __consumer_offsets of 6 partitions at RF 3, a 6-partition topic at RF 3.

1. Two `kcat -G` consumers in one group share the topic: each gets partitions, and
   together they read every record exactly once. A third joins: the group rebalances
   (each of the three ends with two partitions) and every record produced after it is
   read, none lost.
2. confluent-kafka subscribe(), commit() after processing, close(); a new consumer of the
   same group resumes at the committed offsets (nothing read twice, nothing skipped).
3. Incremental cooperative rebalancing (KIP-429, librdkafka's cooperative-sticky): when a
   third member joins two, each of the two gives up only the one partition that moves
   (never all of its partitions) and the three end with two each.
4. Static membership (KIP-345): two members with group.instance.id; one restarts
   (closed without leaving, a new consumer with the same instance id) and gets its
   partitions back without a rebalance: the other member's assignment is never revoked
   and the coordinator logs the static member's return, not a rebalance.
5. The brokers' /metrics: the coordinators' group figures add up to what happened
   (every __consumer_offsets partition loaded once, rebalances, commits, groups by state).

Usage: consumer_groups_test.py <bin dir> <strata-cluster>
"""

import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replication_harness import Cluster, TestFailed, log  # noqa: E402

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402

TOPIC = "orders"
PARTITIONS = 6


def produce(cluster, topic, start, count):
    """count records value r-<i> (i from start), acks=all; returns when every one is acknowledged."""
    p = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "enable.idempotence": True,
                  "linger.ms": 5})
    failed = []
    for i in range(start, start + count):
        p.produce(topic, key=f"k{i}".encode(), value=f"r-{i}".encode(),
                  on_delivery=lambda err, msg: failed.append(err) if err else None)
        p.poll(0)
    left = p.flush(60)
    if left or failed:
        raise TestFailed(f"{left} records not acknowledged, {len(failed)} failed: {failed[:3]}")


def group(cluster, group_id):
    """The group as the coordinator describes it (AdminClient.list_groups: ListGroups + DescribeGroups);
    None while a coordinator still loads its __consumer_offsets partitions (COORDINATOR_LOAD_IN_PROGRESS,
    which Kafka answers too, and its clients retry)."""
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    try:
        groups = admin.list_groups(group_id, timeout=10)
    except KafkaException as e:
        if e.args and e.args[0].code() == KafkaError.COORDINATOR_LOAD_IN_PROGRESS:
            return None
        raise
    return groups[0] if groups else None


def stable_with(cluster, group_id, members):
    g = group(cluster, group_id)
    return g is not None and g.state == "Stable" and len(g.members) == members


class KcatConsumer:
    """kcat -G in the background, printing "<partition> <offset> <value>" per record."""

    def __init__(self, cluster, group_id, name):
        self.path = os.path.join(cluster.dir, f"kcat-{name}.out")
        self.out = open(self.path, "w")
        self.proc = subprocess.Popen(
            ["kcat", "-G", group_id, "-b", cluster.bootstrap, "-X", "auto.offset.reset=earliest", "-q", "-u",
             "-f", "%p %o %s\\n", TOPIC], stdout=self.out, stderr=subprocess.DEVNULL)

    def records(self):
        with open(self.path) as f:
            return [tuple(line.split()) for line in f if line.count(" ") == 2 and line.endswith("\n")]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.close()


def values(records):
    return [r[2] for r in records]


def kcat_group(cluster):
    log("== two kcat -G consumers share the topic; a third joins")
    consumers = [KcatConsumer(cluster, "kcat-group", "a"), KcatConsumer(cluster, "kcat-group", "b")]
    try:
        # Nothing is produced before both are members: the first alone would read it all.
        cluster.wait_for("the group to be Stable with two members", lambda: stable_with(cluster, "kcat-group", 2), 60,
                         state=lambda: group(cluster, "kcat-group"))
        produce(cluster, TOPIC, 0, 6000)
        expected = {f"r-{i}" for i in range(6000)}
        cluster.wait_for("both consumers to have read all 6000 records",
                         lambda: set(values(consumers[0].records() + consumers[1].records())) >= expected, 60,
                         state=lambda: [len(c.records()) for c in consumers])
        read = [c.records() for c in consumers]
        every = values(read[0] + read[1])
        cluster.check(len(every) == len(set(every)) == 6000,
                      f"the two consumers read {len(every)} records, {len(set(every))} distinct, not 6000 once each")
        parts = [{r[0] for r in rs} for rs in read]
        cluster.check(parts[0] and parts[1] and not (parts[0] & parts[1]) and len(parts[0] | parts[1]) == PARTITIONS,
                      f"the consumers' partitions {sorted(parts[0])} and {sorted(parts[1])} do not split the six")

        consumers.append(KcatConsumer(cluster, "kcat-group", "c"))
        cluster.wait_for("the group to be Stable with three members", lambda: stable_with(cluster, "kcat-group", 3),
                         60, state=lambda: group(cluster, "kcat-group"))
        g = group(cluster, "kcat-group")
        produce(cluster, TOPIC, 6000, 3000)
        expected = {f"r-{i}" for i in range(9000)}
        cluster.wait_for("the three consumers to have read all 9000 records",
                         lambda: set(values([r for c in consumers for r in c.records()])) >= expected, 60,
                         state=lambda: [len(c.records()) for c in consumers])
        late = [{r[0] for r in c.records() if int(r[2].split("-")[1]) >= 6000} for c in consumers]
        cluster.check(all(len(p) == 2 for p in late) and len(set().union(*late)) == PARTITIONS,
                      f"after the third joined the consumers read partitions {[sorted(p) for p in late]}, "
                      f"not two each (group {g.state}, {len(g.members)} members)")
    finally:
        for c in consumers:
            c.stop()


def commit_and_resume(cluster):
    log("== confluent-kafka: commit after processing, close, a new consumer resumes")
    conf = {"bootstrap.servers": cluster.bootstrap, "group.id": "resume", "auto.offset.reset": "earliest",
            "enable.auto.commit": False}
    first = Consumer(conf)
    first.subscribe([TOPIC])
    seen = []
    deadline = time.monotonic() + 60
    while len(seen) < 4000 and time.monotonic() < deadline:
        msg = first.poll(1.0)
        if msg is None or msg.error():
            continue
        seen.append((msg.partition(), msg.offset(), msg.value().decode()))
        if len(seen) % 500 == 0:
            first.commit(asynchronous=False)  # after processing what was read
    cluster.require(len(seen) == 4000, f"the first consumer read {len(seen)} of 4000 records in 60 s")
    committed = {tp.partition: tp.offset for tp in first.committed(
        [TopicPartition(TOPIC, p) for p in range(PARTITIONS)], timeout=10)}
    next_of = {}
    for p, o, _ in seen:
        next_of[p] = max(next_of.get(p, 0), o + 1)
    cluster.check(all(committed.get(p) == o for p, o in next_of.items()),
                  f"committed offsets {committed} are not the next offsets after what was read {next_of}")
    first.close()

    second = Consumer(conf)
    second.subscribe([TOPIC])
    total = 9000
    rest = []
    deadline = time.monotonic() + 60
    while len(seen) + len(rest) < total and time.monotonic() < deadline:
        msg = second.poll(1.0)
        if msg is None or msg.error():
            continue
        rest.append((msg.partition(), msg.offset(), msg.value().decode()))
    second.close()
    firsts = {}
    for p, o, _ in rest:
        firsts.setdefault(p, o)
    starts = {p: max(committed.get(p, -1), 0) for p in range(PARTITIONS)}  # no offset: earliest
    cluster.check(all(firsts[p] == starts[p] for p in firsts),
                  f"the second consumer started at {firsts}, not at the committed offsets {committed}")
    both = [v for _, _, v in seen + rest]
    cluster.check(len(both) == len(set(both)) == total,
                  f"the two consumers read {len(both)} records, {len(set(both))} distinct, not {total} once each")


class StaticMember:
    def __init__(self, cluster, instance):
        self.instance = instance
        self.events = []
        self.consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "static",
                                  "group.instance.id": instance, "session.timeout.ms": 30000,
                                  "auto.offset.reset": "earliest"})
        self.consumer.subscribe([TOPIC], on_assign=self.on_assign, on_revoke=self.on_revoke)
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def on_assign(self, consumer, partitions):
        self.events.append(("assign", sorted(p.partition for p in partitions)))

    def on_revoke(self, consumer, partitions):
        self.events.append(("revoke", sorted(p.partition for p in partitions)))

    def run(self):
        while not self.stop:
            self.consumer.poll(0.2)

    def assigned(self):
        assigns = [e for e in self.events if e[0] == "assign"]
        return assigns[-1][1] if assigns else None

    def close(self):
        self.stop = True
        self.thread.join()
        self.consumer.close()  # a static member does not leave its group on close


class CooperativeMember:
    """A cooperative-sticky member tracking what it owns from its incremental callbacks."""

    def __init__(self, cluster, name):
        self.owned = set()
        self.revoked = []  # each revocation's partitions
        self.lock = threading.Lock()
        self.consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "cooperative",
                                  "partition.assignment.strategy": "cooperative-sticky",
                                  "auto.offset.reset": "earliest", "heartbeat.interval.ms": 500})
        self.consumer.subscribe([TOPIC], on_assign=self.on_assign, on_revoke=self.on_revoke)
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def on_assign(self, consumer, partitions):
        with self.lock:
            self.owned |= {p.partition for p in partitions}

    def on_revoke(self, consumer, partitions):
        with self.lock:
            self.revoked.append(sorted(p.partition for p in partitions))
            self.owned -= {p.partition for p in partitions}

    def run(self):
        while not self.stop:
            self.consumer.poll(0.1)

    def close(self):
        self.stop = True
        self.thread.join()
        self.consumer.close()


def cooperative(cluster):
    log("== cooperative-sticky: a third member takes one partition from each of the others")
    members = [CooperativeMember(cluster, "a"), CooperativeMember(cluster, "b")]
    try:
        cluster.wait_for("two cooperative members to own three partitions each",
                         lambda: [len(m.owned) for m in members] == [3, 3] and stable_with(cluster, "cooperative", 2),
                         60, state=lambda: [sorted(m.owned) for m in members])
        before = [set(m.owned) for m in members]
        revoked_before = [len(m.revoked) for m in members]
        members.append(CooperativeMember(cluster, "c"))
        cluster.wait_for("the three to own two partitions each",
                         lambda: [len(m.owned) for m in members] == [2, 2, 2] and
                         stable_with(cluster, "cooperative", 3), 60,
                         state=lambda: [sorted(m.owned) for m in members])
        for m, owned, n in zip(members[:2], before, revoked_before):
            revocations = m.revoked[n:]
            cluster.check(len(revocations) == 1 and len(revocations[0]) == 1 and set(revocations[0]) <= owned,
                          f"a member owning {sorted(owned)} had {revocations} revoked, not one partition")
        cluster.check(len(set().union(*[m.owned for m in members])) == PARTITIONS,
                      f"the three own {[sorted(m.owned) for m in members]}, not the six partitions once")
    finally:
        for m in members:
            m.close()


def group_metrics(cluster):
    log("== the coordinators' metrics")
    total = {}
    for b in cluster.brokers:
        for name, value in cluster.scrape(b).items():
            if name.startswith("strata_group"):
                total[name] = total.get(name, 0) + value
    cluster.check(total.get("strata_group_partitions_loaded_total") == 6,
                  f"the brokers loaded {total.get('strata_group_partitions_loaded_total')} partitions of "
                  "__consumer_offsets, not each of the 6 once")
    cluster.check(total.get("strata_group_rebalances_total", 0) >= 5,
                  f"{total.get('strata_group_rebalances_total')} rebalances counted, fewer than the tests made")
    cluster.check(total.get("strata_group_offset_commits_total", 0) >= PARTITIONS,
                  f"{total.get('strata_group_offset_commits_total')} offset commits counted")
    cluster.check(total.get("strata_group_offset_commit_seconds_count", 0) > 0, "no commit latency recorded")
    stable = total.get('strata_groups{state="Stable"}', 0)
    cluster.check(stable == 1, f"{stable} groups counted Stable; only the static group has members now")


def rebalances_of(cluster, group_id):
    logs = "".join(cluster.server_log(b) for b in cluster.brokers)
    return logs.count(f"preparing to rebalance group {group_id} ")


def static_membership(cluster):
    log("== static membership: a restarted member gets its partitions back without a rebalance")
    one, two = StaticMember(cluster, "instance-1"), StaticMember(cluster, "instance-2")
    try:
        cluster.wait_for("both static members to be assigned",
                         lambda: stable_with(cluster, "static", 2) and one.assigned() and two.assigned() and
                         len(one.assigned()) + len(two.assigned()) == PARTITIONS, 60,
                         state=lambda: (one.events, two.events))
        before_one, events_two = one.assigned(), list(two.events)
        rebalances = rebalances_of(cluster, "static")
        one.close()
        one = StaticMember(cluster, "instance-1")
        cluster.wait_for("the restarted member to be assigned", lambda: one.assigned(), 30, state=lambda: one.events)
        cluster.check(one.assigned() == before_one,
                      f"the restarted static member got {one.assigned()}, it had {before_one}")
        cluster.check(two.events == events_two,
                      f"the other static member saw {two.events[len(events_two):]} while instance-1 restarted")
        logs = "".join(cluster.server_log(b) for b in cluster.brokers)
        cluster.check("static member instance-1 of group static rejoined" in logs,
                      "no coordinator logged the static member's return")
        more = rebalances_of(cluster, "static") - rebalances
        cluster.check(more == 0, f"group static rebalanced {more} times while instance-1 restarted")
    finally:
        one.close()
        two.close()


def main():
    overrides = {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "6"}
    with Cluster(sys.argv[1], sys.argv[2], "groups", overrides=overrides, budget_s=200, controllers=1) as cluster:
        cluster.create_topic(TOPIC, PARTITIONS, 3)
        kcat_group(cluster)
        commit_and_resume(cluster)
        cooperative(cluster)
        static_membership(cluster)
        group_metrics(cluster)
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
