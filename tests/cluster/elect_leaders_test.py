#!/usr/bin/python3
"""Kafka's ElectLeaders API (issue 18): what kafka-leader-election.sh and
AdminClient.electLeaders send, as raw requests to a broker, which forwards them to the
active controller.

1 controller and 3 brokers with auto.leader.rebalance.enable=false, a 6-partition topic at
RF 3 (each broker the preferred replica, the first, of two partitions). The preferred
replica of partition 0 is killed with kill -9 and restarted: its two partitions are led
by other brokers and stay so (nothing moves them back). Then:
  * ElectLeaders v2 (PREFERRED) naming one of them, a partition its preferred replica
    leads, a partition that does not exist and a topic that does not: NONE,
    ELECTION_NOT_NEEDED, UNKNOWN_TOPIC_OR_PARTITION twice;
  * v0 (no election type: always PREFERRED) for the other moved partition: NONE, and
    again: ELECTION_NOT_NEEDED;
  * v1 UNCLEAN for a partition with a live leader: ELECTION_NOT_NEEDED;
  * an unknown election type: INVALID_REQUEST, top-level and for the partition;
then every broker's Metadata shows every partition led by its preferred replica, and a
v2 request for every partition (null) answers none: no election was needed.

Usage: elect_leaders_test.py <bin dir> <strata-cluster>
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kafka_probe import connect_when_listening, kafka_call, skip_tagged_fields, string, uvarint, uvarint_at  # noqa: E402
from replication_harness import Cluster, TestFailed, log  # noqa: E402

TOPIC = "elected"
PARTITIONS = 6
ELECT_LEADERS = 43
METADATA = 3

NONE = 0
UNKNOWN_TOPIC_OR_PARTITION = 3
INVALID_REQUEST = 42
ELECTION_NOT_NEEDED = 84
PREFERRED, UNCLEAN = 0, 1

overrides = {
    "auto.leader.rebalance.enable": "false",
    "broker.session.timeout.ms": 2000,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 100,
}


# ---- ElectLeaders on the wire ------------------------------------------------------

def elect_request(version, election_type, topic_partitions, timeout_ms=30000):
    """The request body: election type (v1+), topic partitions ({topic: [partition]}, None
    for every partition), timeout; compact with tagged fields from v2."""
    flexible = version >= 2
    body = struct.pack(">b", election_type) if version >= 1 else b""
    if topic_partitions is None:
        body += b"\x00" if flexible else struct.pack(">i", -1)
    elif flexible:
        body += uvarint(len(topic_partitions) + 1)
        for topic, partitions in topic_partitions.items():
            body += uvarint(len(topic) + 1) + topic.encode()
            body += uvarint(len(partitions) + 1) + b"".join(struct.pack(">i", p) for p in partitions)
            body += b"\x00"  # no tagged fields
    else:
        body += struct.pack(">i", len(topic_partitions))
        for topic, partitions in topic_partitions.items():
            body += string(topic) + struct.pack(">i", len(partitions))
            body += b"".join(struct.pack(">i", p) for p in partitions)
    body += struct.pack(">i", timeout_ms)
    if flexible:
        body += b"\x00"
    return body


class Cursor:
    """Reads a response body field by field, classic or compact."""

    def __init__(self, data, flexible):
        self.data, self.at, self.flexible = data, 0, flexible

    def fixed(self, fmt):
        (value,) = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return value

    def count(self):
        if not self.flexible:
            return self.fixed(">i")
        n, self.at = uvarint_at(self.data, self.at)
        return n - 1

    def string(self):
        n = self.count() if self.flexible else self.fixed(">h")
        if n < 0:
            return None
        value = self.data[self.at:self.at + n].decode()
        self.at += n
        return value

    def tags(self):
        if self.flexible:
            self.at = skip_tagged_fields(self.data, self.at)

    def done(self):
        if self.at != len(self.data):
            raise TestFailed(f"{len(self.data) - self.at} bytes left after the response")


def elect(address, version, election_type, topic_partitions, correlation_id):
    """(top-level error or None before v1, {(topic, partition): (error, message)})."""
    flexible = version >= 2
    with connect_when_listening(address, 30) as sock:
        data = kafka_call(sock, ELECT_LEADERS, version, correlation_id,
                          elect_request(version, election_type, topic_partitions), flexible=flexible)
    r = Cursor(data, flexible)
    r.fixed(">i")  # throttle time
    top = r.fixed(">h") if version >= 1 else None
    results = {}
    for _ in range(r.count()):
        topic = r.string()
        for _ in range(r.count()):
            partition = r.fixed(">i")
            error = r.fixed(">h")
            message = r.string()
            r.tags()
            if (topic, partition) in results:
                raise TestFailed(f"{topic}-{partition} answered twice")
            results[(topic, partition)] = (error, message)
        r.tags()
    r.tags()
    r.done()
    log(f"ElectLeaders v{version} type {election_type} {topic_partitions}: top-level {top}, {results}")
    return top, results


# ---- Metadata v1 -------------------------------------------------------------------

def metadata_leaders(address, topic):
    """{partition: (leader, replicas)} of topic in the broker's Metadata v1 answer."""
    with connect_when_listening(address, 30) as sock:
        data = kafka_call(sock, METADATA, 1, 7, struct.pack(">i", 1) + string(topic))
    r = Cursor(data, False)
    for _ in range(r.count()):  # brokers: node id, host, port, rack
        r.fixed(">i")
        r.string()
        r.fixed(">i")
        r.string()
    r.fixed(">i")  # controller id
    out = {}
    for _ in range(r.count()):
        error = r.fixed(">h")
        name = r.string()
        r.fixed(">b")  # is_internal
        for _ in range(r.count()):
            r.fixed(">h")
            index = r.fixed(">i")
            leader = r.fixed(">i")
            replicas = [r.fixed(">i") for _ in range(r.count())]
            for _ in range(r.count()):  # isr
                r.fixed(">i")
            if name == topic:
                out[index] = (leader, replicas)
        if name == topic and error != NONE:
            return {}
    r.done()
    return out


def main():
    with Cluster(sys.argv[1], sys.argv[2], "elect-leaders", overrides=overrides, budget_s=150,
                 controllers=1) as cluster:
        cluster.create_topic(TOPIC, PARTITIONS, 3)
        led_by_preferred = lambda p: p["leader"] == p["replicas"][0]  # noqa: E731
        cluster.wait_for("every partition led by its preferred replica",
                         lambda: all(led_by_preferred(p) for p in cluster.partitions(TOPIC)), 30)

        victim = cluster.partition(TOPIC, 0)["replicas"][0]
        preferred_by_victim = [p["partition"] for p in cluster.partitions(TOPIC) if p["replicas"][0] == victim]
        cluster.require(len(preferred_by_victim) == 2,
                        f"broker {victim} is the preferred replica of {preferred_by_victim}, not of two partitions")
        cluster.kill9(victim)
        cluster.wait_for(f"broker {victim}'s partitions to have other leaders",
                         lambda: all(p["leader"] not in (victim, -1) for p in cluster.partitions(TOPIC)), 30,
                         state=lambda: cluster.cluster_state(TOPIC))
        cluster.start(victim)
        cluster.wait_for(f"broker {victim} back in every ISR", lambda: cluster.settled(TOPIC), 60,
                         state=lambda: cluster.cluster_state(TOPIC))
        parts = cluster.partitions(TOPIC)
        moved = [p["partition"] for p in parts if not led_by_preferred(p)]
        cluster.require(sorted(moved) == sorted(preferred_by_victim),
                        f"with auto.leader.rebalance.enable=false, partitions {moved} are not led by their preferred "
                        f"replica; expected broker {victim}'s {preferred_by_victim}: {cluster.cluster_state(TOPIC)}")
        already = next(p["partition"] for p in parts if led_by_preferred(p))
        first, second = moved
        others = [b for b in cluster.brokers if b != victim]
        address = cluster.address(others[0])

        # v2: one moved partition, one already led by its preferred replica, a missing
        # partition and a missing topic.
        top, results = elect(address, 2, PREFERRED, {TOPIC: [first, already, 99], "no-such-topic": [0]}, 21)
        cluster.check(top == NONE, f"ElectLeaders v2 answered top-level error {top}")
        expected = {(TOPIC, first): NONE, (TOPIC, already): ELECTION_NOT_NEEDED,
                    (TOPIC, 99): UNKNOWN_TOPIC_OR_PARTITION, ("no-such-topic", 0): UNKNOWN_TOPIC_OR_PARTITION}
        got = {k: error for k, (error, _) in results.items()}
        cluster.check(got == expected, f"ElectLeaders v2 answered {got}, expected {expected}")
        cluster.check(results.get((TOPIC, first), (None, ""))[1] is None,
                      f"an elected partition carries the message {results.get((TOPIC, first))}")

        # v0 (always PREFERRED) for the other moved partition, then again: not needed now.
        _, results = elect(cluster.address(others[1]), 0, PREFERRED, {TOPIC: [second]}, 22)
        cluster.check({k: e for k, (e, _) in results.items()} == {(TOPIC, second): NONE},
                      f"ElectLeaders v0 of {TOPIC}-{second} answered {results}")
        _, results = elect(address, 0, PREFERRED, {TOPIC: [second]}, 23)
        cluster.check({k: e for k, (e, _) in results.items()} == {(TOPIC, second): ELECTION_NOT_NEEDED},
                      f"a second ElectLeaders v0 of {TOPIC}-{second} answered {results}")

        # v1 UNCLEAN with a live leader: nothing to elect. An unknown type is refused.
        top, results = elect(address, 1, UNCLEAN, {TOPIC: [already]}, 24)
        cluster.check((top, {k: e for k, (e, _) in results.items()}) == (NONE, {(TOPIC, already): ELECTION_NOT_NEEDED}),
                      f"an unclean election of {TOPIC}-{already}, which has a live leader, answered {top} {results}")
        top, results = elect(address, 2, 7, {TOPIC: [first]}, 25)
        cluster.check((top, {k: e for k, (e, _) in results.items()}) == (INVALID_REQUEST, {(TOPIC, first): INVALID_REQUEST}),
                      f"election type 7 answered {top} {results}")

        # Every broker's Metadata shows the preferred replicas leading.
        def every_broker_shows_preferred_leaders():
            for broker in cluster.brokers:
                leaders = metadata_leaders(cluster.address(broker), TOPIC)
                if sorted(leaders) != list(range(PARTITIONS)):
                    return False
                if any(leader != replicas[0] for leader, replicas in leaders.values()):
                    return False
            return True
        cluster.wait_for("every broker's Metadata to show every partition led by its preferred replica",
                         every_broker_shows_preferred_leaders, 30,
                         state=lambda: {b: metadata_leaders(cluster.address(b), TOPIC) for b in cluster.brokers})
        cluster.check(all(led_by_preferred(p) for p in cluster.partitions(TOPIC)),
                      f"the controller's view differs: {cluster.cluster_state(TOPIC)}")

        # Every partition (null): all led by their preferred replica, so none is answered.
        top, results = elect(address, 2, PREFERRED, None, 26)
        cluster.check(top == NONE and results == {},
                      f"ElectLeaders of every partition, with every preferred replica leading, answered {top} {results}")
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
