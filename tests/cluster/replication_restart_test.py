"""A leader restarted at once, with its unflushed tail lost, leads nothing until it has
registered anew; no acknowledged record is lost (issue 6: an unclean kill is handled by
fencing).

3 controllers + 3 brokers (real processes); topic `restart`: 1 partition, RF 3,
min.insync.replicas 2; broker.session.timeout.ms 6 s, so that the restart comes well
before the controller fences the dead incarnation.
  * 200 records with acks=all reach every replica.
  * kill -9 of the leader, then what a power failure does to a log that was never
    flushed: the leader's segment loses its last 100 records (cut above the recovery
    point, where nothing was fsynced). It restarts at once, with the metadata image it
    stopped with, which still names it leader.
  * While its old incarnation is not fenced yet the restarted broker hosts nothing: a
    Fetch and a Produce to it (spoken on a socket as soon as it listens) are answered
    NOT_LEADER_OR_FOLLOWER, so the followers do not
    truncate to its shorter log. (Before the fix it led again in the same epoch from its
    stale image, and its followers cut the acknowledged records 100..199 to match.)
  * The controller fences the old incarnation and elects an ISR follower; the restarted
    broker registers, catches up with the metadata log (its restart adds a log line that
    says so) and
    follows; then every replica holds the same bytes, every acknowledged record once in
    order, and acks=all works on.
Usage: /usr/bin/python3 replication_restart_test.py <bin dir> <strata-cluster>
"""

import os
import struct
import sys

from kafka_probe import connect_when_listening, fetch_error, kafka_call, string
from replication_harness import Cluster, TestFailed, check_sequence, log, produce_values, read_all

TOPIC = "restart"
SESSION_MS = 6000

overrides = {
    "broker.session.timeout.ms": SESSION_MS,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": 10000,
    "replica.fetch.backoff.ms": 100,
}


NOT_LEADER_OR_FOLLOWER = 6
CAUGHT_UP = "caught up with the metadata log"


def produce_error(sock, topic, partition):
    """The error code of a Produce v3 (acks=1) of a few bytes to one partition. The bytes are
    no record batch: only a broker that hosts and leads the partition looks at them (and
    refuses them), so the probe can never add to the log."""
    records = b"not a record batch"
    body = (struct.pack(">hhi", -1, 1, 5000) + struct.pack(">i", 1) + string(topic) + struct.pack(">i", 1) +
            struct.pack(">ii", partition, len(records)) + records)
    r = kafka_call(sock, 0, 3, 11, body)
    # [responses: name, [partition_responses: index, error_code, base_offset, log_append_time]], throttle
    (topics,) = struct.unpack(">i", r[:4])
    (name_len,) = struct.unpack(">h", r[4:6])
    at = 6 + name_len
    (parts,) = struct.unpack(">i", r[at:at + 4])
    index, error = struct.unpack(">ih", r[at + 4:at + 10])
    if (topics, parts, index) != (1, 1, partition):
        raise TestFailed(f"a Produce answer for {topics} topics, {parts} partitions, partition {index}")
    return error


def recovery_point(cluster, node, topic, index):
    """The replica's entry in its log dir's recovery-point-offset-checkpoint (0 if none)."""
    path = os.path.join(cluster.dir, f"node-{node}", "logs", "recovery-point-offset-checkpoint")
    if not os.path.exists(path):
        return 0
    with open(path) as f:
        for line in f.read().splitlines()[2:]:
            parts = line.split()
            if len(parts) == 3 and parts[0] == topic and int(parts[1]) == index:
                return int(parts[2])
    return 0


with Cluster(sys.argv[1], sys.argv[2], "replication-restart", overrides, budget_s=110) as cluster:
    cluster.create_topic(TOPIC, 1, 3, {"min.insync.replicas": 2})
    first = cluster.partition(TOPIC, 0)
    leader, replicas = first["leader"], first["replicas"]
    epoch = first["leader_epoch"]

    # Two produces: the second hundred starts a batch of its own.
    base = [r for start in (0, 100) for r in produce_values(cluster.bootstrap, TOPIC, 0,
                                                            [f"base-{i}" for i in range(start, start + 100)],
                                                            {"acks": "all"})]
    cluster.require(all(err is None for _, _, err in base), f"acks=all produce failed: {[r for r in base if r[2]][:3]}")
    cluster.wait_for("every replica at offset 200", lambda: all(cluster.log_end(n, TOPIC, 0) == 200 for n in replicas),
                     20)

    # kill -9, then the power failure: the tail past the last fsync is gone.
    cluster.kill9(leader)
    segments = cluster.segments(leader, TOPIC, 0)
    cluster.require(len(segments) == 1, f"expected one segment, found {segments}")
    cut = next((b for b in cluster.batches(leader, TOPIC, 0) if b["baseOffset"] >= 100), None)
    cluster.require(cut is not None, "no batch starts at or after offset 100")
    flushed = recovery_point(cluster, leader, TOPIC, 0)
    cluster.require(flushed <= cut["baseOffset"],
                    f"the recovery point {flushed} is past offset {cut['baseOffset']}: those records were fsynced")
    os.truncate(segments[0], cut["position"])
    log(f"broker {leader}'s log cut to offset {cut['baseOffset']} (byte {cut['position']}), as after a power failure")
    caught_up_before = cluster.server_log(leader).count(CAUGHT_UP)  # the log is appended to
    cluster.start(leader)

    # The old incarnation is still registered (the session runs SESSION_MS): the image the
    # restarted broker has names it leader. It must neither lead nor host the partition:
    # a real Produce and Fetch to it are answered NOT_LEADER_OR_FOLLOWER (and keep being
    # so once it follows the new leader).
    with connect_when_listening(cluster.address(leader), 30) as probe:
        produce = produce_error(probe, TOPIC, 0)
        fetch = fetch_error(probe, TOPIC, 0)
    state = cluster.partition(TOPIC, 0)
    log(f"broker {leader} restarted: Produce error {produce}, Fetch error {fetch}; the partition's leader "
        f"{state['leader']} in epoch {state['leader_epoch']} (epoch {epoch} when it was killed)")
    cluster.check(produce == NOT_LEADER_OR_FOLLOWER,
                  f"broker {leader}, restarted before it was fenced, answered a Produce with error {produce}, "
                  f"not NOT_LEADER_OR_FOLLOWER ({NOT_LEADER_OR_FOLLOWER})")
    cluster.check(fetch == NOT_LEADER_OR_FOLLOWER,
                  f"broker {leader}, restarted before it was fenced, answered a Fetch with error {fetch}, "
                  f"not NOT_LEADER_OR_FOLLOWER ({NOT_LEADER_OR_FOLLOWER})")

    new_leader = cluster.wait_for("an ISR follower to take over",
                                  lambda: next((p["leader"] for p in cluster.partitions(TOPIC)
                                                if p["leader"] not in (leader, -1)), None), 30)
    log(f"broker {new_leader} leads after broker {leader}")
    cluster.wait_for(f"broker {leader} registered anew and back in the ISR", lambda: cluster.settled(TOPIC), 30)
    cluster.wait_for("every replica's log end at the leader's",
                     lambda: len({cluster.log_end(n, TOPIC, 0) for n in replicas}) == 1, 30)
    caught_up_after = cluster.server_log(leader).count(CAUGHT_UP)
    cluster.check(caught_up_after > caught_up_before,
                  f"broker {leader}'s restart did not log that it {CAUGHT_UP} ({caught_up_before} such lines before "
                  f"the restart, {caught_up_after} after)")

    after = produce_values(cluster.bootstrap, TOPIC, 0, [f"after-{i}" for i in range(100)], {"acks": "all"})
    cluster.require(all(err is None for _, _, err in after),
                    f"acks=all produce after the restart failed: {[r for r in after if r[2]][:3]}")
    cluster.wait_for("every replica's log end at the leader's after more records",
                     lambda: len({cluster.log_end(n, TOPIC, 0) for n in replicas}) == 1, 30)
    cluster.check(cluster.replicas_identical(TOPIC, 0, replicas),
                  f"replicas differ: {cluster.describe_difference(TOPIC, 0, replicas)}")

    # Every acknowledged record once, in order, at its offset: base-0..199 then after-*.
    rank = {"base": 0, "after": 1}

    def number(value):
        tag, _, n = value.rpartition("-")
        return (rank[tag], int(n)) if tag in rank and n.isdigit() else None

    acked = {number(v): o for v, o, _ in base + after}
    consumed, errors = read_all(cluster.bootstrap, TOPIC, 1)
    cluster.check(not errors, f"consumer errors: {errors[:5]}")
    for what, records in [(f"broker {n}'s log", cluster.records(n, TOPIC, 0)) for n in replicas] + \
                         [("the consumer", consumed[0])]:
        check_sequence(cluster, f"{TOPIC}-0 in {what}", records, number, acked)

sys.exit(cluster.exit_code())
