"""The remote tier's object store down and back (issue 39), with real processes.

3 controllers + 3 brokers tiering to the cluster's own S3 store (MinIO on loopback,
`strata-cluster up --object-store`), S3 calls given up after 3 s. Topic `down`: 1
partition, RF 3, remote.storage.enable, 256 KiB segments, local.retention.bytes 512 KiB,
min.insync.replicas 2.
  * 6 MiB with acks=all from an idempotent producer; the leader copies what rolled and
    every local log shrinks to about the local retention.
  * The store is killed (kill -9). 6 MiB more with acks=all: every record acknowledged,
    none failed (the store is not on the produce path).
  * While it is down no copy finishes, and no replica's local log drops a segment that
    is not copied: every broker's first local offset stays at or below the highest
    copied offset + 1, so the records the remote tier lacks are all on local disks.
  * A fetch below the local log start (the remote tier's range) answers the leader's
    KAFKA_STORAGE_ERROR (retriable: a client retries it), and the local tail is served.
  * The store is started again (same port, same data): copies resume to within the
    active segment of the end, the local logs shrink again, and a consumer from offset 0
    reads every acknowledged record once, at its acknowledged offset.
Usage: /usr/bin/python3 tiered_store_down_test.py <bin dir> <strata-cluster>
"""

import os
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

from kafka_probe import connect_when_listening, fetch_error
from replication_harness import TestFailed, client_error_logger, log
from tiered_harness import TieredCluster, dir_bytes, tiers

TOPIC = "down"
VALUE_BYTES = 1024
SEGMENT = 256 << 10
LOCAL_RETENTION = 512 << 10
PHASE = 6 * 1024  # records per phase
KAFKA_STORAGE_ERROR = 56


def value_of(n):
    head = f"{n:09d}:".encode()
    return head + bytes((n * 7 + i) % 251 for i in range(VALUE_BYTES - len(head)))


def produce(cluster, producer, first, count, acked, failed):
    def report(n):
        def on_delivery(err, msg):
            if err is None:
                acked[n] = msg.offset()
            else:
                failed.append((n, str(err)))
        return on_delivery

    for n in range(first, first + count):
        while True:
            try:
                producer.produce(TOPIC, value=value_of(n), partition=0, on_delivery=report(n))
                break
            except BufferError:
                producer.poll(0.05)
        producer.poll(0)
    left = producer.flush(120)
    cluster.require(left == 0, f"{left} records had no delivery report")


def first_local_offset(cluster, broker):
    """The base offset of the replica's oldest local segment."""
    files = cluster.segments(broker, TOPIC, 0)
    return int(os.path.basename(files[0])[:20]) if files else None


def read_from_zero(cluster, end, timeout=180):
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "store-down-unused",
                         "enable.auto.commit": False, "fetch.max.bytes": 4 << 20})
    got = {}
    try:
        consumer.assign([TopicPartition(TOPIC, 0, 0)])
        deadline = time.monotonic() + timeout
        while len(got) < end:
            if time.monotonic() > deadline:
                raise TestFailed(f"read {len(got)} records from offset 0 in {timeout} s, not {end}")
            for msg in consumer.consume(2000, timeout=0.5):
                if msg.error() is None:
                    got.setdefault(msg.offset(), msg.value())
                elif msg.error().code() != KafkaError._PARTITION_EOF:
                    log(f"consumer: {msg.error()}")
    finally:
        consumer.close()
    return got


def main():
    overrides = {"rsm.config.storage.s3.api.call.timeout": 3000,
                 "rsm.config.storage.s3.api.call.attempt.timeout": 1000,
                 "remote.log.manager.task.retry.backoff.max.ms": 1000}
    with TieredCluster(sys.argv[1], sys.argv[2], "store-down", None, budget_s=300, overrides=overrides) as cluster:
        cluster.create_topic(TOPIC, 1, 3, {"remote.storage.enable": "true", "segment.bytes": SEGMENT,
                                           "local.retention.bytes": LOCAL_RETENTION, "min.insync.replicas": 2})
        cluster.wait_for("the partition settles", lambda: cluster.settled(TOPIC), 30)
        errors = []
        producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "linger.ms": 5, "batch.size": 64 << 10,
                             "enable.idempotence": True, "message.timeout.ms": 60000,
                             "error_cb": client_error_logger("producer", errors)})
        acked, failed = {}, []
        produce(cluster, producer, 0, PHASE, acked, failed)
        end = max(acked.values()) + 1
        cluster.wait_for("the leader copies what rolled", lambda: tiers(cluster, TOPIC)["highest_copied_offset"]
                         >= end - 2 * SEGMENT // VALUE_BYTES, 60, state=lambda: tiers(cluster, TOPIC))

        # The store down: produce goes on, nothing uncopied leaves a local disk.
        cluster.cluster("kill", "object-store")
        log("kill -9 of the object store")
        copied = tiers(cluster, TOPIC)["highest_copied_offset"]
        produce(cluster, producer, PHASE, PHASE, acked, failed)
        cluster.check(not failed, f"{len(failed)} records failed with the store down, e.g. {failed[:3]}")
        end = max(acked.values()) + 1
        log(f"{len(acked)} records acknowledged, {end - 1 - copied} of them above the highest copy {copied}")
        # Local retention passes run every 500 ms: several of them see the store down.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            for b in cluster.brokers:
                first = first_local_offset(cluster, b)
                if not cluster.check(first is not None and first <= copied + 1,
                                     f"broker {b} dropped uncopied records: its log starts at {first}, "
                                     f"the highest copy ends at {copied}"):
                    break
            time.sleep(0.5)  # sampling the local logs across retention passes
        now = tiers(cluster, TOPIC)
        cluster.check(now["highest_copied_offset"] == copied,
                      f"a copy finished with the store down: {now['highest_copied_offset']} after {copied}")
        leader = cluster.partition(TOPIC, 0)["leader"]
        with connect_when_listening(cluster.address(leader), 30) as sock:
            code = fetch_error(sock, TOPIC, 0, 0)
        cluster.check(code == KAFKA_STORAGE_ERROR, f"a fetch of offset 0 with the store down got error {code}")
        with connect_when_listening(cluster.address(leader), 30) as sock:
            code = fetch_error(sock, TOPIC, 0, end - 5)
        cluster.check(code == 0, f"the local tail was not served with the store down: error {code}")

        # The store back: copies resume, local logs shrink, every record reads back.
        cluster.cluster("start", "object-store")
        log("the object store started again")
        cluster.wait_for("copies resume to the active segment", lambda: tiers(cluster, TOPIC)["highest_copied_offset"]
                         >= end - 2 * SEGMENT // VALUE_BYTES, 90, state=lambda: tiers(cluster, TOPIC))
        cluster.wait_for("every local log shrinks again", lambda: all(
            dir_bytes(cluster.partition_dir(b, TOPIC, 0)) <= LOCAL_RETENTION + 3 * SEGMENT for b in cluster.brokers),
            60, state=lambda: {b: dir_bytes(cluster.partition_dir(b, TOPIC, 0)) for b in cluster.brokers})
        got = read_from_zero(cluster, end)
        wrong = [n for n, offset in acked.items() if got.get(offset) != value_of(n)]
        cluster.check(not wrong, f"{len(wrong)} acknowledged records missing or changed, e.g. {wrong[:5]}")
        log(f"read {len(got)} records from offset 0, every acknowledged one at its offset")
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
