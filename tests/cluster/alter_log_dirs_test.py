"""AlterReplicaLogDirs under load and across a kill -9 (issue 38).

1 controller + 3 brokers, each with two log dirs (strata-cluster --log-dirs 2); topic
`moving`: 3 partitions, replication factor 1 (the moved replica is the only copy: nothing
can come back from another replica), an idempotent acks=all producer throughout.
  * Under load: the replica of partition 0 moves to its broker's other log dir
    (AlterReplicaLogDirs sent as a client would, the answer's error checked). The move
    ends — the partition's directory is in the other dir, no `-future` or old directory
    left — and the producer never stops.
  * Across a kill -9: the broker's copy is slowed with the dynamic
    replica.alter.log.dirs.io.max.bytes.per.second, the replica moves back, and the
    broker is killed while its `-future` log is part-copied. Restarted, the broker finds
    the future log and goes on copying (its log says so); with the throttle removed the
    move ends.
  * Bad requests: a path not in log.dirs is LOG_DIR_NOT_FOUND, a partition the broker
    does not host REPLICA_NOT_AVAILABLE.
  * Afterwards every acknowledged record is in its partition once, at its acknowledged
    offset, in production order, and no delivery failed.
Usage: /usr/bin/python3 alter_log_dirs_test.py <bin dir> <strata-cluster>
"""

import os
import struct
import sys
import time

from kafka_probe import connect_when_listening, kafka_call, string
from replication_harness import Cluster, NumberedProducer, check_every_acknowledged, log

TOPIC = "moving"
PARTITIONS = 3
ALTER_REPLICA_LOG_DIRS = 34
LOG_DIR_NOT_FOUND = 57
REPLICA_NOT_AVAILABLE = 9
THROTTLE = "replica.alter.log.dirs.io.max.bytes.per.second"

overrides = {
    "broker.session.timeout.ms": 2000,
    "broker.heartbeat.interval.ms": 200,
    "log.segment.delete.delay.ms": 1000,
}


def alter_replica_log_dirs(cluster, broker, path, topic, partition):
    """AlterReplicaLogDirs v1 to broker: the partition's error code."""
    body = struct.pack(">i", 1) + string(path) + struct.pack(">i", 1) + string(topic) + struct.pack(">ii", 1, partition)
    with connect_when_listening(cluster.address(broker), 30) as sock:
        answer = kafka_call(sock, ALTER_REPLICA_LOG_DIRS, 1, 1, body)
    # throttle_time_ms, [topic_name, [partition_index, error_code]]
    at = 4
    (topics,) = struct.unpack_from(">i", answer, at)
    at += 4
    cluster.require(topics == 1, f"AlterReplicaLogDirs answered {topics} topics")
    (name_length,) = struct.unpack_from(">h", answer, at)
    at += 2 + name_length
    (partitions,) = struct.unpack_from(">i", answer, at)
    at += 4
    cluster.require(partitions == 1, f"AlterReplicaLogDirs answered {partitions} partitions")
    index, error = struct.unpack_from(">ih", answer, at + 0)
    cluster.require(index == partition, f"AlterReplicaLogDirs answered partition {index}")
    return error


def where(cluster, broker, partition):
    """(the log dir holding the replica, whether a future log of it exists anywhere)."""
    holding, future = None, False
    for d in cluster.log_dir_paths(broker):
        for name in os.listdir(d):
            if name == f"{TOPIC}-{partition}":
                holding = d
            elif name.startswith(f"{TOPIC}-{partition}.") and name.endswith("-future"):
                future = True
    return holding, future


def log_bytes(path):
    """The bytes of the .log segments under path (indexes are preallocated)."""
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            if not f.endswith(".log"):
                continue
            try:
                total += os.path.getsize(os.path.join(root, f))
            except FileNotFoundError:
                pass  # deleted since the listing
    return total


def future_bytes(cluster, broker, partition):
    for d in cluster.log_dir_paths(broker):
        for name in os.listdir(d):
            if name.startswith(f"{TOPIC}-{partition}.") and name.endswith("-future"):
                return log_bytes(os.path.join(d, name))
    return 0


def longest_gap(producer, partition, since, until):
    """The longest time between two acknowledgements of partition's records in [since, until]."""
    with producer.lock:
        times = sorted(t for n, t in producer.acked_at.items() if n % PARTITIONS == partition and since <= t <= until)
    return max((b - a for a, b in zip(times, times[1:])), default=0.0)


def move(cluster, broker, partition):
    """Asks broker to move its replica to its other dir; returns (from, to)."""
    source, future = where(cluster, broker, partition)
    cluster.require(source is not None and not future, f"{TOPIC}-{partition} on broker {broker}: in {source}, "
                                                       f"future log {future}")
    target = next(d for d in cluster.log_dir_paths(broker) if d != source)
    error = alter_replica_log_dirs(cluster, broker, os.path.abspath(target), TOPIC, partition)
    cluster.require(error == 0, f"AlterReplicaLogDirs of {TOPIC}-{partition} to {target}: error {error}")
    return source, target


def moved(cluster, broker, partition, target):
    holding, future = where(cluster, broker, partition)
    return holding == target and not future


def run(cluster):
    cluster.create_topic(TOPIC, PARTITIONS, 1, {"segment.bytes": 262144})
    broker = cluster.partition(TOPIC, 0)["leader"]
    producer = NumberedProducer(cluster.bootstrap, TOPIC, PARTITIONS, "m", {"enable.idempotence": True},
                                rate=1500).start()
    cluster.wait_for("the producer to start", lambda: producer.acked_at_least(3000), 30)

    # Bad requests first: nothing moves.
    error = alter_replica_log_dirs(cluster, broker, "/nonexistent/strata-log-dir", TOPIC, 0)
    cluster.check(error == LOG_DIR_NOT_FOUND, f"a path not in log.dirs: error {error}, not LOG_DIR_NOT_FOUND")
    other = next(b for b in cluster.brokers if b != broker)
    error = alter_replica_log_dirs(cluster, other, os.path.abspath(cluster.log_dir_paths(other)[0]), TOPIC, 0)
    cluster.check(error == REPLICA_NOT_AVAILABLE, f"a replica not on broker {other}: error {error}")

    # Under load. The figure: partition 0's longest time without an acknowledgement while
    # it moved, against the same over as long a time just before.
    started = time.monotonic()
    source, target = move(cluster, broker, 0)
    acked = producer.acked_count()
    cluster.wait_for(f"{TOPIC}-0 to move from {source} to {target}", lambda: moved(cluster, broker, 0, target), 60)
    ended = time.monotonic()
    cluster.wait_for("the producer to go on after the move", lambda: producer.acked_at_least(acked + 1500), 30)
    during = longest_gap(producer, 0, started, ended + 1)
    before = longest_gap(producer, 0, started - (ended + 1 - started), started)
    log(f"{TOPIC}-0 moved on broker {broker} from {source} to {target} in {ended - started:.1f} s under load; "
        f"FIGURE longest acknowledgement gap of {TOPIC}-0: {during * 1000:.0f} ms during the move, "
        f"{before * 1000:.0f} ms before it")

    # Across a kill -9: slowed down so that the kill lands while the copy is under way.
    cluster.wait_for(f"{TOPIC}-0 to hold 200 kB", lambda: log_bytes(os.path.join(target, f"{TOPIC}-0")) > 200_000,
                     60)
    cluster.strata("configs", "alter", "--broker", str(broker), "--set", f"{THROTTLE}=20000")
    _, back = move(cluster, broker, 0)
    cluster.wait_for("the copy to start", lambda: future_bytes(cluster, broker, 0) > 20_000, 30)
    cluster.require(where(cluster, broker, 0)[1], "the move ended before the kill")
    cluster.kill9(broker)
    cluster.check(where(cluster, broker, 0) == (target, True),
                  f"after the kill: {where(cluster, broker, 0)}, not the replica in {target} with its future log")
    cluster.start(broker)
    cluster.wait_for(f"broker {broker} to go on with the move",
                     lambda: "goes on" in cluster.server_log(broker), 60)
    cluster.strata("configs", "alter", "--broker", str(broker), "--delete", THROTTLE)
    cluster.wait_for(f"{TOPIC}-0 to move back to {back} after the restart", lambda: moved(cluster, broker, 0, back),
                     90)
    acked = producer.acked_count()
    cluster.wait_for("the producer to go on", lambda: producer.acked_at_least(acked + 1500), 60)
    log(f"{TOPIC}-0 moved back to {back} across a kill -9 of broker {broker} during its copy")

    check_every_acknowledged(cluster, producer, TOPIC, PARTITIONS)


with Cluster(sys.argv[1], sys.argv[2], "alter-log-dirs", overrides, budget_s=240, controllers=1,
             log_dirs=2) as cluster:
    run(cluster)
sys.exit(cluster.exit_code())
