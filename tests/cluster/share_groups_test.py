#!/usr/bin/python3
"""KIP-932 share groups with real processes, over the wire (kafka_probe): 1 controller, 3
brokers, __share_group_state of 3 partitions at RF 3, a topic of 2 partitions.

The group coordinator's part:
  * ShareGroupHeartbeat v1: three members join a group on the 2-partition topic; the
    `simple` assignor gives every member a partition, so two members share one;
  * ShareGroupDescribe v1 shows the group Stable with its three members, their epochs and
    partitions, and the same after kill -9 of the group coordinator (the members and
    their epochs are in __consumer_offsets); a member heartbeats on with its epoch.

The share coordinator's (`__share_group_state`), as a share-partition leader asks it:
  * FindCoordinator v6 with key type 2 ("group:topicId:partition") has
    __share_group_state created on first use (COORDINATOR_NOT_AVAILABLE until it has
    leaders) and then names the leader of the key's partition (Kafka's hash of the key);
    a malformed key is INVALID_REQUEST;
  * InitializeShareGroupState, WriteShareGroupState, ReadShareGroupState and
    ReadShareGroupStateSummary answer what was written; a read in a newer leader epoch
    fences a write in an older one (FENCED_LEADER_EPOCH), a re-initialization fences a
    write in the old state epoch (FENCED_STATE_EPOCH); another broker answers
    NOT_COORDINATOR, an unknown topic id UNKNOWN_TOPIC_OR_PARTITION;
  * kill -9 of the coordinator: the partition's new leader answers the same state, which
    was committed (acks=all) before its write was answered;
  * DeleteShareGroupState removes it (a read is then INVALID_REQUEST, as Kafka).

Usage: share_groups_test.py <bin dir> <strata-cluster>
"""

import base64
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kafka_probe import connect_when_listening, kafka_call, skip_tagged_fields, uvarint, uvarint_at  # noqa: E402
from replication_harness import Cluster, TestFailed, log  # noqa: E402

TOPIC = "queue"
GROUP = "share-app"
STATE_PARTITIONS = 3

NONE, INVALID_REQUEST, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE = 0, 42, 16, 15
UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH = 3, 74, 124
FIND_COORDINATOR, INITIALIZE, READ, WRITE, DELETE, SUMMARY = 10, 83, 84, 85, 86, 87
SHARE_HEARTBEAT, SHARE_DESCRIBE = 76, 77
GROUP_KEY, SHARE_KEY = 0, 2
AVAILABLE, ACKNOWLEDGED, ARCHIVED = 0, 2, 4

overrides = {
    "broker.session.timeout.ms": 2000,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": 2000,
    "share.coordinator.state.topic.num.partitions": STATE_PARTITIONS,
}


# ---- the flexible encoding ----------------------------------------------------------
def cstring(s):
    return uvarint(len(s) + 1) + s.encode()


def carray(items):
    return uvarint(len(items) + 1) + b"".join(items)


TAGS = b"\x00"


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, fmt):
        size = struct.calcsize(fmt)
        value = struct.unpack(fmt, self.data[self.at:self.at + size])
        self.at += size
        return value if len(value) > 1 else value[0]

    def count(self):
        n, self.at = uvarint_at(self.data, self.at)
        return n - 1

    def string(self):
        n = self.count()
        if n < 0:
            return None
        s = self.data[self.at:self.at + n].decode()
        self.at += n
        return s

    def uuid(self):
        self.at += 16
        return self.data[self.at - 16:self.at]

    def tags(self):
        self.at = skip_tagged_fields(self.data, self.at)


def find_coordinators(sock, keys, key_type=SHARE_KEY):
    """FindCoordinator v6 (key type 2: share partitions): {key: (error, node id, host:port)}."""
    body = struct.pack(">b", key_type) + carray([cstring(k) for k in keys]) + TAGS
    r = Reader(kafka_call(sock, FIND_COORDINATOR, 6, 1, body, flexible=True))
    r.take(">i")
    out = {}
    for _ in range(r.count()):
        key = r.string()
        node = r.take(">i")
        host = r.string()
        port = r.take(">i")
        error = r.take(">h")
        r.string()
        r.tags()
        out[key] = (error, node, f"{host}:{port}")
    return out


def state_call(sock, api_key, version, partition_fields, read_partition, tid=None):
    """One share partition's state API call (GROUP, partition 0 of the topic, or of tid):
    its result."""
    body = cstring(GROUP) + carray([(tid or topic_id) + carray([partition_fields + TAGS]) + TAGS]) + TAGS
    r = Reader(kafka_call(sock, api_key, version, 2, body, flexible=True))
    results = r.count()
    if results != 1:
        raise TestFailed(f"API {api_key}: {results} topic results")
    r.uuid()
    if r.count() != 1:
        raise TestFailed(f"API {api_key}: not one partition result")
    out = {"partition": r.take(">i"), "error": r.take(">h"), "message": r.string()}
    out.update(read_partition(r))
    r.tags()
    return out


def initialize(sock, state_epoch, start_offset):
    return state_call(sock, INITIALIZE, 0, struct.pack(">iiq", 0, state_epoch, start_offset), lambda r: {})


def write(sock, state_epoch, leader_epoch, start_offset, batches):
    fields = struct.pack(">iiiqi", 0, state_epoch, leader_epoch, start_offset, -1)
    fields += carray([struct.pack(">qqbh", *b) + TAGS for b in batches])
    return state_call(sock, WRITE, 1, fields, lambda r: {})


def read(sock, leader_epoch, tid=None):
    def rest(r):
        out = {"state_epoch": r.take(">i"), "start_offset": r.take(">q"), "batches": []}
        for _ in range(r.count()):
            out["batches"].append(r.take(">qqbh"))
            r.tags()
        return out
    return state_call(sock, READ, 0, struct.pack(">ii", 0, leader_epoch), rest, tid)


def summary(sock, leader_epoch):
    def rest(r):
        return {"state_epoch": r.take(">i"), "leader_epoch": r.take(">i"), "start_offset": r.take(">q"),
                "delivery_complete": r.take(">i")}
    return state_call(sock, SUMMARY, 1, struct.pack(">ii", 0, leader_epoch), rest)


def delete(sock):
    return state_call(sock, DELETE, 0, struct.pack(">i", 0), lambda r: {})


def share_heartbeat(sock, member, epoch, topics=None):
    """ShareGroupHeartbeat v1: (error, member epoch, {topic id: partitions} or None)."""
    names = b"\x00" if topics is None else carray([cstring(t) for t in topics])
    body = cstring(GROUP) + cstring(member) + struct.pack(">i", epoch) + b"\x00" + names + TAGS
    r = Reader(kafka_call(sock, SHARE_HEARTBEAT, 1, 3, body, flexible=True))
    r.take(">i")
    error = r.take(">h")
    r.string()
    r.string()
    member_epoch = r.take(">i")
    r.take(">i")
    assignment = None
    if r.take(">b") >= 0:
        assignment = {}
        for _ in range(r.count()):
            tid = r.uuid()
            assignment[tid] = sorted(r.take(">i") for _ in range(r.count()))
            r.tags()
        r.tags()
    return error, member_epoch, assignment


def share_describe(sock):
    """ShareGroupDescribe v1 of GROUP: (error, state, assignor, {member: (epoch, partitions)})."""
    body = carray([cstring(GROUP)]) + struct.pack(">b", 0) + TAGS
    r = Reader(kafka_call(sock, SHARE_DESCRIBE, 1, 4, body, flexible=True))
    r.take(">i")
    if r.count() != 1:
        raise TestFailed("ShareGroupDescribe: not one group")
    error = r.take(">h")
    r.string()
    r.string()
    state = r.string()
    r.take(">i")
    r.take(">i")
    assignor = r.string()
    members = {}
    for _ in range(r.count()):
        member = r.string()
        r.string()
        epoch = r.take(">i")
        r.string()
        r.string()
        for _ in range(r.count()):
            r.string()
        partitions = []
        for _ in range(r.count()):
            r.uuid()
            r.string()
            partitions += [r.take(">i") for _ in range(r.count())]
            r.tags()
        r.tags()
        members[member] = (epoch, sorted(partitions))
        r.tags()
    return error, state, assignor, members


# ---- the test -------------------------------------------------------------------------
with Cluster(sys.argv[1], sys.argv[2], "share-groups", overrides=overrides, controllers=1,
             budget_s=180) as cluster:
    cluster.create_topic(TOPIC, 2, 3)
    text = cluster.strata("topics", "describe", TOPIC)[0]["topic_id"]
    topic_id = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    cluster.require(len(topic_id) == 16, f"a 16-byte topic id from {text}")
    key = f"{GROUP}:{text}:0"
    any_broker = connect_when_listening(cluster.address(cluster.brokers[0]), 30)

    bad = find_coordinators(any_broker, ["not-a-key"])
    cluster.check(bad["not-a-key"][0] == INVALID_REQUEST, f"a malformed share key answers {bad}")

    def coordinator():
        found = find_coordinators(any_broker, [key])[key]
        return found if found[0] == NONE else None
    error, node, address = cluster.wait_for("__share_group_state created and the key's coordinator known",
                                            coordinator, 30)
    log(f"{key}: coordinator is broker {node} ({address})")
    other = next(b for b in cluster.brokers if b != node)
    sock = connect_when_listening(address, 30)
    elsewhere = connect_when_listening(cluster.address(other), 30)

    def loaded_initialize():
        out = initialize(sock, 1, 0)
        # COORDINATOR_LOAD_IN_PROGRESS, or the leadership not applied there yet
        return out if out["error"] not in (14, NOT_COORDINATOR) else None
    out = cluster.wait_for("the coordinator's state partition loaded", loaded_initialize, 30)
    cluster.require(out["error"] == NONE, f"InitializeShareGroupState: {out}")
    cluster.check(initialize(elsewhere, 1, 0)["error"] == NOT_COORDINATOR, "another broker is not the coordinator")

    batches = [(0, 9, ACKNOWLEDGED, 1), (10, 14, AVAILABLE, 2), (15, 15, ARCHIVED, 5)]
    out = write(sock, 1, 3, 0, batches)
    cluster.require(out["error"] == NONE, f"WriteShareGroupState: {out}")
    got = read(sock, 3)
    cluster.check(got["error"] == NONE and got["state_epoch"] == 1 and got["start_offset"] == 0 and
                  [tuple(b) for b in got["batches"]] == batches, f"ReadShareGroupState answers what was written: {got}")
    s = summary(sock, -1)
    cluster.check(s["error"] == NONE and s["leader_epoch"] == 3 and s["start_offset"] == 0 and
                  s["delivery_complete"] == 11, f"ReadShareGroupStateSummary: {s}")
    bad_state = write(sock, 1, 3, 0, [(0, 1, 3, 1)])
    cluster.check(bad_state["error"] == INVALID_REQUEST, f"an undefined delivery state is refused: {bad_state}")

    # The coordinator dies; the new leader of the state partition has the committed state.
    cluster.kill9(node)

    def moved():
        found = find_coordinators(elsewhere, [key])[key]
        return found if found[0] == NONE and found[1] != node else None
    error, new_node, new_address = cluster.wait_for("a new coordinator for the key", moved, 30)
    log(f"{key}: coordinator is now broker {new_node}")
    sock = connect_when_listening(new_address, 30)

    def loaded_read():
        out = read(sock, 4)  # the share partition's new leader, in a newer epoch
        return out if out["error"] not in (14, NOT_COORDINATOR) else None
    got = cluster.wait_for("the new coordinator loaded", loaded_read, 30)
    cluster.check(got["error"] == NONE and [tuple(b) for b in got["batches"]] == batches and
                  got["start_offset"] == 0, f"after kill -9 the new coordinator answers the same state: {got}")
    late = write(sock, 1, 3, 0, [])
    cluster.check(late["error"] == FENCED_LEADER_EPOCH, f"the old share-partition leader's write is fenced: {late}")
    out = initialize(sock, 2, 16)
    cluster.check(out["error"] == NONE, f"a re-initialization (an alter of the start offset): {out}")
    stale = write(sock, 1, 4, 16, [])
    cluster.check(stale["error"] == FENCED_STATE_EPOCH, f"a write in the old state epoch is fenced: {stale}")
    s = summary(sock, -1)
    cluster.check(s["state_epoch"] == 2 and s["start_offset"] == 16, f"the summary after the alter: {s}")

    got = read(sock, 4, tid=b"\x01" * 16)
    cluster.check(got["error"] == UNKNOWN_TOPIC_OR_PARTITION, f"an unknown topic id: {got}")

    cluster.check(delete(sock)["error"] == NONE, "DeleteShareGroupState")
    gone = read(sock, 4)
    cluster.check(gone["error"] == INVALID_REQUEST, f"a read after the delete: {gone}")
    s = summary(sock, -1)
    cluster.check(s["error"] == NONE and s["start_offset"] == -1, f"the summary after the delete: {s}")

    # ---- share group membership -----------------------------------------------------
    # The killed broker back, so that __consumer_offsets (RF 3) can be created.
    cluster.start(node)
    def group_coordinator():
        found = find_coordinators(elsewhere, [GROUP], GROUP_KEY)[GROUP]
        return found if found[0] == NONE else None
    _, group_node, group_address = cluster.wait_for("the share group's coordinator", group_coordinator, 30)
    log(f"group {GROUP}: coordinator is broker {group_node}")
    gsock = connect_when_listening(group_address, 30)
    members = [f"member-{i}-0000000000000000" for i in range(3)]

    def joined(member):
        def attempt():
            out = share_heartbeat(gsock, member, 0, [TOPIC])
            return out if out[0] not in (14, NOT_COORDINATOR) else None
        return cluster.wait_for(f"{member} joins", attempt, 30)
    epochs = {}
    for m in members:
        error, epoch, assignment = joined(m)
        cluster.require(error == NONE, f"ShareGroupHeartbeat join of {m}: error {error}")
        epochs[m] = epoch
    for m in members:  # each catches up with the last join's assignment
        error, epoch, assignment = share_heartbeat(gsock, m, epochs[m])
        cluster.require(error == NONE, f"ShareGroupHeartbeat of {m}: error {error}")
        epochs[m] = epoch
    error, state, assignor, described = share_describe(gsock)
    cluster.check(error == NONE and state == "Stable" and assignor == "simple", f"ShareGroupDescribe: {error} {state}")
    cluster.check(sorted(described) == members and all(described[m][0] == epochs[m] for m in members),
                  f"ShareGroupDescribe's members and epochs: {described}, heartbeats said {epochs}")
    held = sorted(p for m in members for p in described[m][1])
    cluster.check(all(len(described[m][1]) == 1 for m in members) and sorted(set(held)) == [0, 1] and len(held) == 3,
                  f"three members on two partitions: each one, one partition shared: {described}")

    cluster.kill9(group_node)
    survivor = next(b for b in cluster.brokers if b not in (group_node, node))
    probe = connect_when_listening(cluster.address(survivor), 30)

    def group_moved():
        found = find_coordinators(probe, [GROUP], GROUP_KEY)[GROUP]
        return found if found[0] == NONE and found[1] != group_node else None
    _, _, group_address = cluster.wait_for("a new group coordinator", group_moved, 30)
    gsock = connect_when_listening(group_address, 30)

    def described_again():
        out = share_describe(gsock)
        return out if out[0] not in (14, NOT_COORDINATOR) else None
    error, state, _, after = cluster.wait_for("the new group coordinator loaded", described_again, 30)
    cluster.check(error == NONE and after == described,
                  f"after kill -9 of the group coordinator the group is the same: {after} (was {described})")
    error, epoch, _ = share_heartbeat(gsock, members[0], epochs[members[0]])
    cluster.check(error == NONE and epoch == epochs[members[0]],
                  f"a member heartbeats on with its epoch after the failover: error {error}, epoch {epoch}")

sys.exit(cluster.exit_code())
