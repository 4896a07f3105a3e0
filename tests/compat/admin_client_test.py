"""Kafka admin APIs of a running Strata cluster, through a real client.

Run with Debian's Python and python3-confluent-kafka (librdkafka underneath):
    /usr/bin/python3 admin_client_test.py <bootstrap.servers>
AdminClient creates topics (an existing one: TOPIC_ALREADY_EXISTS; too many replicas:
INVALID_REPLICATION_FACTOR; validate_only creates nothing: a topic created after it
shows in Metadata, it does not), describes topic and broker
configs (static, dynamic per broker and cluster default, set by the strata CLI), alters
a topic's configs whole (AlterConfigs: validate_only, a set, an unknown key refused), adds
partitions (a smaller count: INVALID_PARTITIONS) and deletes topics (an unknown one:
UNKNOWN_TOPIC_OR_PARTITION); after each, Metadata (list_topics) shows the effect.
confluent-kafka 1.7 has no describe_cluster and sends older versions, so the newest
ones are spoken directly on a socket: DescribeCluster v0/v1 (brokers, cluster id and
controller id as Metadata has them), CreateTopics v7 (topic id, the broker's default
partitions, configs) and DeleteTopics v6 by topic id (and one topic by name and id at
once: deleted once, the second INVALID_REQUEST).
Exits non-zero naming every failed check.
"""

import os
import socket
import struct
import sys
import time

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewPartitions, NewTopic

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cluster"))
from kafka_probe import uvarint  # noqa: E402  the raw requests' varints

FAILURES = []


def check(ok, what):
    if not ok:
        FAILURES.append(what)
        print("FAILED:", what, file=sys.stderr)


def error_code(future):
    """The Kafka error code a future ends with (0 for success)."""
    try:
        future.result(timeout=30)
        return 0
    except KafkaException as e:
        return e.args[0].code()


def wait_for(what, condition, timeout=20.0):
    """Polls Metadata until condition(metadata) holds; records a failure otherwise."""
    deadline = time.time() + timeout
    while True:
        md = ADMIN.list_topics(timeout=10)
        if condition(md):
            return md
        if time.time() > deadline:
            check(False, what)
            return md
        time.sleep(0.1)  # the broker's image follows the controller's log


def partitions_of(md, topic):
    t = md.topics.get(topic)
    return None if t is None or t.error is not None else t.partitions


# ---- the raw protocol, for what confluent-kafka 1.7 does not send ----


def compact_string(s):
    if s is None:
        return b"\x00"
    data = s.encode()
    return uvarint(len(data) + 1) + data


class Buf:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        chunk = self.data[self.pos:self.pos + n]
        assert len(chunk) == n, "response ends early"
        self.pos += n
        return chunk

    def i8(self):
        return struct.unpack(">b", self.take(1))[0]

    def i16(self):
        return struct.unpack(">h", self.take(2))[0]

    def i32(self):
        return struct.unpack(">i", self.take(4))[0]

    def uvarint(self):
        shift = value = 0
        while True:
            b = self.take(1)[0]
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7

    def compact_string(self):
        n = self.uvarint()
        return None if n == 0 else self.take(n - 1).decode()

    def compact_array(self, element):
        n = self.uvarint()
        return None if n == 0 else [element(self) for _ in range(n - 1)]

    def tags(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())


def call(address, api_key, version, body, correlation_id=7):
    """One flexible request (header v2) and its response body (after header v1)."""
    header = struct.pack(">hhi", api_key, version, correlation_id) + struct.pack(">h", 4) + b"test" + b"\x00"
    frame = header + body
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", recv_exactly(s, 4))[0]
        buf = Buf(recv_exactly(s, size))
    assert buf.i32() == correlation_id
    buf.tags()
    return buf


def recv_exactly(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        assert chunk, "connection closed"
        data += chunk
    return data


def describe_cluster(address, version):
    body = b"\x00" + (b"\x01" if version >= 1 else b"") + b"\x00"
    r = call(address, 60, version, body)
    out = {"throttle": r.i32(), "error": r.i16(), "message": r.compact_string()}
    if version >= 1:
        out["endpoint_type"] = r.i8()
    out["cluster_id"] = r.compact_string()
    out["controller_id"] = r.i32()

    def broker(b):
        entry = (b.i32(), b.compact_string(), b.i32(), b.compact_string())
        b.tags()
        return entry

    out["brokers"] = r.compact_array(broker)
    out["authorized_operations"] = r.i32()
    r.tags()
    return out


def create_topic_v7(address, name):
    body = (uvarint(2) + compact_string(name) + struct.pack(">ih", -1, -1) + uvarint(1) + uvarint(1) + b"\x00"
            + struct.pack(">i", 10000) + b"\x00" + b"\x00")
    r = call(address, 19, 7, body)
    r.i32()

    def config(b):
        entry = (b.compact_string(), b.compact_string(), b.i8(), b.i8(), b.i8())
        b.tags()
        return entry

    def topic(b):
        entry = {"name": b.compact_string(), "id": b.take(16), "error": b.i16(), "message": b.compact_string(),
                 "partitions": b.i32(), "replication": b.i16(), "configs": b.compact_array(config)}
        b.tags()
        return entry

    topics = r.compact_array(topic)
    r.tags()
    return topics[0]


def delete_topics_v6(address, topics):
    """topics: (name or None, 16-byte id) pairs. The per-topic results, in order."""
    body = uvarint(len(topics) + 1)
    for name, topic_id in topics:
        body += compact_string(name) + topic_id + b"\x00"
    body += struct.pack(">i", 10000) + b"\x00"
    r = call(address, 20, 6, body)
    r.i32()

    def result(b):
        entry = {"name": b.compact_string(), "id": b.take(16), "error": b.i16(), "message": b.compact_string()}
        b.tags()
        return entry

    results = r.compact_array(result)
    r.tags()
    return results


# ---- the checks ----

BOOTSTRAP = sys.argv[1]
ADMIN = AdminClient({"bootstrap.servers": BOOTSTRAP})
FIRST = BOOTSTRAP.split(",")[0]

md = ADMIN.list_topics(timeout=10)
broker_ids = sorted(md.brokers)
check(len(broker_ids) == 3, f"three brokers in Metadata, got {broker_ids}")

# CreateTopics: success, defaults, an existing topic, too many replicas, validate_only.
futures = ADMIN.create_topics([
    NewTopic("orders", 3, 2, config={"retention.ms": "3600000", "cleanup.policy": "compact"}),
    NewTopic("defaults", -1, -1),
    NewTopic("too-wide", 1, 5),
], operation_timeout=10)
check(error_code(futures["orders"]) == 0, "create orders")
check(error_code(futures["defaults"]) == 0, "create defaults (broker defaults)")
check(error_code(futures["too-wide"]) == KafkaError.INVALID_REPLICATION_FACTOR,
      "5 replicas on 3 brokers is INVALID_REPLICATION_FACTOR")
again = ADMIN.create_topics([NewTopic("orders", 1, 1)])["orders"]
check(error_code(again) == KafkaError.TOPIC_ALREADY_EXISTS, "creating orders again is TOPIC_ALREADY_EXISTS")
dry = ADMIN.create_topics([NewTopic("dry-run", 2, 1)], validate_only=True)["dry-run"]
check(error_code(dry) == 0, "validate_only create succeeds")
# A topic created for real after the validate_only request: once a broker's Metadata
# shows it, that broker's image holds everything the controller wrote before it, which
# would include dry-run had validate_only created it.
marker = ADMIN.create_topics([NewTopic("after-dry-run", 1, 1)], operation_timeout=10)["after-dry-run"]
check(error_code(marker) == 0, "create after-dry-run")

md = wait_for("orders (3 partitions x 2 replicas), defaults (1 partition) and after-dry-run in Metadata", lambda m:
              partitions_of(m, "orders") is not None and len(partitions_of(m, "orders")) == 3
              and all(len(p.replicas) == 2 for p in partitions_of(m, "orders").values())
              and partitions_of(m, "defaults") is not None and len(partitions_of(m, "defaults")) == 1
              and partitions_of(m, "after-dry-run") is not None)
check("after-dry-run" in md.topics and "dry-run" not in md.topics,
      f"validate_only created nothing (Metadata lists {sorted(md.topics)})")
check("too-wide" not in md.topics, "a refused topic was not created")

# DescribeConfigs: a topic's set and default configs, a broker's own settings.
resource = ConfigResource("TOPIC", "orders")
configs = ADMIN.describe_configs([resource])[resource].result(timeout=30)
retention = configs.get("retention.ms")
check(retention is not None and retention.value == "3600000"
      and retention.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value,
      f"orders retention.ms set on the topic: {retention}")
policy = configs.get("cleanup.policy")
check(policy is not None and policy.value == "compact", f"orders cleanup.policy: {policy}")
segment = configs.get("segment.bytes")
check(segment is not None and segment.is_default and segment.source == ConfigSource.DEFAULT_CONFIG.value,
      f"orders segment.bytes is a default: {segment}")
missing = ConfigResource("TOPIC", "no-such-topic")
check(error_code(ADMIN.describe_configs([missing])[missing]) == KafkaError.UNKNOWN_TOPIC_OR_PART,
      "describe_configs of a missing topic is UNKNOWN_TOPIC_OR_PARTITION")
broker_resource = ConfigResource("BROKER", str(broker_ids[0]))
broker_configs = ADMIN.describe_configs([broker_resource])[broker_resource].result(timeout=30)
node_id = broker_configs.get("node.id")
check(node_id is not None and node_id.value == str(broker_ids[0])
      and node_id.source == ConfigSource.STATIC_BROKER_CONFIG.value and node_id.is_read_only,
      f"broker {broker_ids[0]} node.id: {node_id}")
check("log.dirs" in broker_configs, "broker configs include log.dirs")
# admin_client_test.sh set num.io.threads for broker 2 and as the cluster default, and
# log.cleaner.threads as the cluster default: broker 2's own setting wins over both.
io_threads = broker_configs.get("num.io.threads")
check(broker_ids[0] == 2 and io_threads is not None and io_threads.value == "4"
      and io_threads.source == ConfigSource.DYNAMIC_BROKER_CONFIG.value and not io_threads.is_read_only,
      f"broker 2 num.io.threads set for it: {io_threads}")
cleaner = broker_configs.get("log.cleaner.threads")
check(cleaner is not None and cleaner.value == "2"
      and cleaner.source == ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG.value,
      f"log.cleaner.threads from the cluster default: {cleaner}")
other = ConfigResource("BROKER", str(broker_ids[1]))
other_configs = ADMIN.describe_configs([other])[other].result(timeout=30)  # librdkafka asks that broker
check(other_configs.get("node.id") is not None and other_configs["node.id"].value == str(broker_ids[1]),
      f"broker {broker_ids[1]} describes itself")
check(other_configs.get("num.io.threads") is not None and other_configs["num.io.threads"].value == "6",
      f"broker {broker_ids[1]} num.io.threads from the cluster default: {other_configs.get('num.io.threads')}")

# AlterConfigs (the whole-set API alter_configs sends): validate_only changes nothing; a
# set replaces the topic's configs; an unknown key is refused (INVALID_CONFIG) and nothing
# of its request applied.
def topic_config(name):
    return ADMIN.describe_configs([resource])[resource].result(timeout=30).get(name)


def config_becomes(name, value, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        entry = topic_config(name)
        if entry is not None and entry.value == value:
            return entry
        time.sleep(0.1)  # polling a condition with a deadline
    return topic_config(name)


whole = ConfigResource("TOPIC", "orders", set_config={"retention.ms": "7200000", "cleanup.policy": "compact"})
check(error_code(ADMIN.alter_configs([whole], validate_only=True)[whole]) == 0, "alter_configs validate_only")
check(topic_config("retention.ms").value == "3600000", "validate_only changed retention.ms")
check(error_code(ADMIN.alter_configs([whole])[whole]) == 0, "alter_configs of orders")
entry = config_becomes("retention.ms", "7200000")
check(entry is not None and entry.value == "7200000" and entry.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value,
      f"orders retention.ms after alter_configs: {entry}")
bad = ConfigResource("TOPIC", "orders", set_config={"retention.ms": "1000", "no.such.config": "1"})
check(error_code(ADMIN.alter_configs([bad])[bad]) == KafkaError.INVALID_CONFIG,
      "alter_configs with an unknown key is INVALID_CONFIG")
check(topic_config("retention.ms").value == "7200000", "a refused alter_configs changed retention.ms")

# CreatePartitions: grow, then a count that is not larger.
grow = ADMIN.create_partitions([NewPartitions("orders", 5)], operation_timeout=10)["orders"]
check(error_code(grow) == 0, "orders to 5 partitions")
shrink = ADMIN.create_partitions([NewPartitions("orders", 2)])["orders"]
check(error_code(shrink) == KafkaError.INVALID_PARTITIONS, "orders to 2 partitions is INVALID_PARTITIONS")
wait_for("orders has 5 partitions of 2 replicas", lambda m:
         partitions_of(m, "orders") is not None and sorted(partitions_of(m, "orders")) == [0, 1, 2, 3, 4]
         and all(len(p.replicas) == 2 for p in partitions_of(m, "orders").values()))

# DeleteTopics: delete, and an unknown topic.
deleted = ADMIN.delete_topics(["orders", "no-such-topic"], operation_timeout=10)
check(error_code(deleted["orders"]) == 0, "delete orders")
check(error_code(deleted["no-such-topic"]) == KafkaError.UNKNOWN_TOPIC_OR_PART,
      "deleting an unknown topic is UNKNOWN_TOPIC_OR_PARTITION")
wait_for("orders gone from Metadata", lambda m: partitions_of(m, "orders") is None)

# DescribeCluster v0 and v1 on every broker: what Metadata says.
for address in BOOTSTRAP.split(","):
    for version in (0, 1):
        dc = describe_cluster(address, version)
        check(dc["error"] == 0, f"DescribeCluster v{version} at {address}: error {dc['error']} {dc['message']}")
        check(sorted(b[0] for b in dc["brokers"]) == broker_ids,
              f"DescribeCluster v{version} brokers {dc['brokers']} vs Metadata {broker_ids}")
        check(dc["cluster_id"] == md.cluster_id, f"cluster id {dc['cluster_id']} vs Metadata {md.cluster_id}")
        check(dc["controller_id"] in broker_ids, f"controller id {dc['controller_id']} is a broker")
        ports = {b[0]: b[2] for b in dc["brokers"]}
        check(all(ports[i] == md.brokers[i].port for i in broker_ids), f"broker ports {ports}")
        if version >= 1:
            check(dc["endpoint_type"] == 1, "endpoint type 1 (brokers)")
controllers = call(FIRST, 60, 1, b"\x00\x02\x00")
controllers.i32()
check(controllers.i16() == 114, "DescribeCluster for controllers at a broker is MISMATCHED_ENDPOINT_TYPE")

# CreateTopics v7 (topic id, defaults, configs) and DeleteTopics v6 by that id.
created = create_topic_v7(FIRST, "by-id")
check(created["error"] == 0, f"CreateTopics v7: {created}")
check(created["id"] != bytes(16), "CreateTopics v7 returns a topic id")
check(created["partitions"] == 1 and created["replication"] == 1, f"broker defaults 1 x 1: {created}")
config_names = {c[0]: c for c in created["configs"] or []}
check(config_names.get("cleanup.policy", (None, None))[1] == "delete", "CreateTopics v7 returns the topic's configs")
wait_for("by-id in Metadata", lambda m: partitions_of(m, "by-id") is not None)
gone = delete_topics_v6(FIRST, [(None, created["id"])])[0]
check(gone["error"] == 0 and gone["name"] == "by-id" and gone["id"] == created["id"], f"DeleteTopics v6 by id: {gone}")
check(delete_topics_v6(FIRST, [(None, created["id"])])[0]["error"] == 100, "deleting the id again is UNKNOWN_TOPIC_ID")
wait_for("by-id gone from Metadata", lambda m: partitions_of(m, "by-id") is None)
# One topic named by its name and by its id in one request: deleted once, the second
# mention INVALID_REQUEST.
pair = create_topic_v7(FIRST, "pair")
both = delete_topics_v6(FIRST, [("pair", bytes(16)), (None, pair["id"])])
check(sorted(r["error"] for r in both) == [0, 42], f"name and id of one topic: {both}")
wait_for("pair gone from Metadata", lambda m: partitions_of(m, "pair") is None)

if FAILURES:
    print(f"{len(FAILURES)} check(s) failed", file=sys.stderr)
    sys.exit(1)
print("admin client test passed")
