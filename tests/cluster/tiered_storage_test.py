"""Tiered storage with real processes (issue 14): rolled segments move to the remote tier,
the local logs keep a tail, and consumers read everything from offset 0.

3 controllers + 3 brokers; every broker has remote.log.storage.system.enable and the same
remote.log.storage.path (a directory of this test: the shared volume), or with `--backend
s3` the same bucket of an S3 object store (MinIO on loopback, `strata-cluster up
--object-store`). Topic `tiered`:
1 partition, RF 3, remote.storage.enable, segment.bytes 1 MiB, local.retention.bytes
2 MiB, min.insync.replicas 2.
  * 100 MiB (102,400 records of 1 KiB, each naming its number) with acks=all; when
    40 MiB are acknowledged the leader is killed with kill -9 while it copies, and is
    started again once its leadership moved. The producer goes on against the new
    leader.
  * Every broker's local log shrinks to about the local retention (at most 2 MiB plus
    the active segment and one rolled segment not yet deleted); the remote tier holds the
    rest: no object left half-written (no .tmp file, no unfinished multipart upload), and
    every copy the metadata
    names COPY_SEGMENT_FINISHED registered once per offset range start.
  * A consumer from offset 0 (confluent-kafka, then kcat) reads every record byte for
    byte, crossing from the remote tier to the local log: each value once, in order,
    every acknowledged value at its acknowledged offset.
  * offsets_for_times (confluent-kafka) answers the exact first offset at or after a
    time, in the remote range and in the local log.
  * A remote object corrupted in the store is detected by its checksum: the fetch of its
    offsets answers KAFKA_STORAGE_ERROR, and the broker goes on serving the local tail.
  * DeleteRecords past the corrupted copy (Kafka's wire, to the leader): the low watermark
    answered, the log start across both tiers there on every broker's view, the copies
    that end below it deleted (objects included), nothing below it served, and
    offsets_for_times of an earlier time answering it.
  * retention.ms set low deletes the remote copies and the log start offset moves.
  * A second tiered topic with copies in the remote tier is deleted: its objects go from
    the remote tier (the sweeper's elected broker deletes everything under its topic id),
    and the first topic's stay.
Usage: /usr/bin/python3 tiered_storage_test.py <bin dir> <strata-cluster> [--backend filesystem|s3]
"""

import glob
import os
import subprocess
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

from kafka_probe import connect_when_listening, delete_records
from replication_harness import TestFailed, client_error_logger, log
import tiered_harness
from tiered_harness import (TieredCluster, backend_from_argv, dir_bytes, leader_fetch_error, produce_records,
                            record_value, tiers, with_remote_dir)

TOPIC = "tiered"
RECORDS = 102_400
VALUE_BYTES = 1024
SEGMENT = 1 << 20
LOCAL_RETENTION = 2 << 20
KILL_AT = 40 * 1024  # records acknowledged
KAFKA_STORAGE_ERROR = 56
OFFSET_OUT_OF_RANGE = 1
CHUNK_CACHE = 16 << 20


def number_in(value):
    n = int(value[:9])
    return n if value == record_value(n) else None


def produce(cluster, acked):
    """Produces every record with acks=all; kills the leader once KILL_AT are acknowledged."""
    errors = []
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "linger.ms": 20,
                         "enable.idempotence": True, "batch.size": 256 * 1024, "message.timeout.ms": 120000,
                         "queue.buffering.max.kbytes": 64 * 1024, "log_level": 2,
                         "error_cb": client_error_logger("producer", errors)})
    failed = []
    killed = []

    def kill_once(n):
        if not killed and len(acked) >= KILL_AT:
            killed.append(cluster.partition(TOPIC, 0)["leader"])
            log(f"kill -9 of leader {killed[0]} at {len(acked)} acknowledged records")
            cluster.kill9(killed[0])
    produce_records(cluster, producer, TOPIC, 0, RECORDS, acked, failed, after_each=kill_once, flush_s=180)
    cluster.check(not failed, f"{len(failed)} records failed, e.g. {failed[:3]}")
    return killed[0] if killed else None


def read_from_zero(cluster, end, timeout=240):
    """confluent-kafka from offset 0 to end: [(offset, value bytes, timestamp ms)] and the errors seen."""
    errors = []
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "tiered-test-unused",
                         "enable.auto.commit": False, "fetch.max.bytes": 4 << 20,
                         "error_cb": client_error_logger("consumer", errors)})
    got = []
    try:
        consumer.assign([TopicPartition(TOPIC, 0, 0)])
        deadline = time.monotonic() + timeout
        while not got or got[-1][0] < end - 1:
            if time.monotonic() > deadline:
                raise TestFailed(f"read {len(got)} records from offset 0 in {timeout} s, not to {end}")
            for msg in consumer.consume(2000, timeout=0.5):
                if msg.error() is None:
                    got.append((msg.offset(), msg.value(), msg.timestamp()[1]))
                elif msg.error().code() != KafkaError._PARTITION_EOF:
                    errors.append(str(msg.error()))
    finally:
        consumer.close()
    return got, errors


def describe_tiers(cluster):
    return tiers(cluster, TOPIC)


def main():
    with_remote_dir("tiered", run, backend_from_argv(sys.argv))


def run(remote_dir):
    # A chunk cache (rsm.config.fetch.chunk.cache.size) far smaller than the remote data,
    # so that the readers below push the first segment's blocks out of it.
    with TieredCluster(sys.argv[1], sys.argv[2], "tiered", remote_dir, budget_s=420,
                       overrides={"rsm.config.fetch.chunk.cache.size": CHUNK_CACHE}) as cluster:
        cluster.create_topic(TOPIC, 1, 3, {"remote.storage.enable": "true", "segment.bytes": SEGMENT,
                                           "local.retention.bytes": LOCAL_RETENTION, "min.insync.replicas": 2})
        cluster.wait_for("the partition settles", lambda: cluster.settled(TOPIC), 30)
        acked = {}
        killed = produce(cluster, acked)
        log(f"{len(acked)} records acknowledged ({cluster.elapsed():.1f} s)")
        cluster.start(killed)
        end = max(acked.values()) + 1
        cluster.wait_for("the restarted broker is back in the ISR", lambda: cluster.isr_full(TOPIC), 120)

        # The remote tier holds all but the local tail; the local logs shrink.
        tier = cluster.tier()
        partition_remote = tier.partitions()
        cluster.require(len(partition_remote) == 1, f"remote partitions {partition_remote}")
        remote = partition_remote[0]

        def shrunk():
            return all(dir_bytes(cluster.partition_dir(b, TOPIC, 0)) <= LOCAL_RETENTION + 3 * SEGMENT
                       for b in cluster.brokers)
        cluster.wait_for("every local log shrinks to about local.retention.bytes", shrunk, 120,
                         state=lambda: {b: dir_bytes(cluster.partition_dir(b, TOPIC, 0)) for b in cluster.brokers})
        # The leader may still be copying the last rolled segments (copying lags producing,
        # more so on a loaded machine) and deleting a copy the killed leader left
        # half-done: once every rolled segment is copied, every .log object in the store is
        # a finished copy the metadata registers, and every registered copy has its object.
        # (The objects are listed before the metadata is read: an object listed was
        # registered COPY_SEGMENT_STARTED before its upload began.)
        def rolled_end():
            """The last offset below the leader's active segment (nothing is produced now)."""
            leader = cluster.partition(TOPIC, 0)["leader"]
            bases = [int(os.path.basename(p)[:20])
                     for p in glob.glob(os.path.join(cluster.partition_dir(leader, TOPIC, 0), "*.log"))]
            return max(bases) - 1

        def copies_settled():
            stored = tier.objects(remote)
            now = describe_tiers(cluster)
            registered = {s["segment_id"] for s in now["remote_segments"]}
            finished = all(s["state"] == "COPY_SEGMENT_FINISHED" for s in now["remote_segments"])
            caught_up = now["highest_copied_offset"] >= rolled_end()
            return (now, stored) if caught_up and finished and set(stored) == registered else None

        def copies_state():
            now = describe_tiers(cluster)
            return {"objects": len(tier.objects(remote)), "copies": len(now["remote_segments"]),
                    "highest copied": now["highest_copied_offset"], "rolled up to": rolled_end(),
                    "not finished": [s for s in now["remote_segments"] if s["state"] != "COPY_SEGMENT_FINISHED"]}
        tiers, stored = cluster.wait_for("every remote .log object is a finished, registered copy", copies_settled,
                                         60, state=copies_state)
        log(f"tiers: {len(tiers['remote_segments'])} copies, remote log start {tiers['remote_log_start_offset']}, "
            f"highest copied {tiers['highest_copied_offset']}, local log start {tiers['local_log_start_offset']}")
        cluster.check(tiers["remote_log_start_offset"] == 0, f"remote log start {tiers['remote_log_start_offset']}")
        cluster.check(tiers["highest_copied_offset"] >= end - 3 * SEGMENT // VALUE_BYTES,
                      f"highest copied {tiers['highest_copied_offset']} of {end}")
        remote_bytes = sum(stored.values())
        cluster.check(remote_bytes >= (RECORDS * VALUE_BYTES) * 0.9,
                      f"the remote tier holds {remote_bytes} bytes of segments")
        cluster.check(not tier.leftovers(remote), f"half-written remote objects are left: {tier.leftovers(remote)}")
        starts = [s["start_offset"] for s in tiers["remote_segments"]]
        cluster.check(len(starts) == len(set(starts)), f"a copy registered twice: {sorted(starts)}")

        # Every record from offset 0, byte for byte, across both tiers.
        got, errors = read_from_zero(cluster, end)
        cluster.check(not errors, f"consumer errors: {errors[:3]}")
        seen = {}
        for offset, value, _ in got:
            n = number_in(value)
            if not cluster.check(n is not None, f"offset {offset}: a value never produced: {value[:20]!r}"):
                break
            cluster.check(n not in seen, f"value {n} at offsets {seen.get(n)} and {offset}")
            seen[n] = offset
        missing = [n for n in acked if seen.get(n) != acked[n]]
        cluster.check(not missing, f"{len(missing)} acknowledged values missing or moved, e.g. "
                                   f"{[(n, acked[n], seen.get(n)) for n in missing[:5]]}")
        log(f"confluent-kafka read {len(got)} records from offset 0")

        # offsets_for_times: exact offsets in the remote range (the first record at or
        # after each time), as the records just read say.
        local_start = describe_tiers(cluster)["local_log_start_offset"]
        probe = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "tiered-test-times"})
        try:
            for index in (0, 5000, 30000, local_start // 2, local_start + 10):
                target = got[index][2]
                want = next(o for o, _, ts in got if ts >= target)
                answer = probe.offsets_for_times([TopicPartition(TOPIC, 0, target)], timeout=30)[0]
                cluster.check(answer.error is None and answer.offset == want,
                              f"offsets_for_times({target}) answered {answer.offset} ({answer.error}), not {want}")
        finally:
            probe.close()
        kcat = subprocess.run(["kcat", "-C", "-b", cluster.bootstrap, "-t", TOPIC, "-p", "0", "-o", "beginning",
                               "-e", "-q", "-f", "%o %S\n"], capture_output=True, timeout=240, text=True)
        lines = kcat.stdout.split()
        cluster.check(kcat.returncode == 0 and len(lines) == 2 * len(got),
                      f"kcat read {len(lines) // 2} records (exit {kcat.returncode}): {kcat.stderr[-300:]}")
        cluster.check(lines[0:2] == ["0", str(VALUE_BYTES)], f"kcat's first record {lines[0:2]}")

        # What the brokers' /metrics say of it: the readers' blocks came through the chunk
        # cache (one block a segment here: prefetch runs on into the next copies), the cache
        # within its size; on S3 the store's answers hold at least every remote .log read.
        scraped = {b: cluster.scrape(b) for b in cluster.brokers}

        def total(sample):
            return sum(m.get(sample, 0) for m in scraped.values())
        cluster.check(total("strata_remote_chunk_cache_misses_total") > 0 and
                      total("strata_remote_chunk_cache_hits_total") > 0,
                      "chunk cache: {} misses, {} hits".format(total("strata_remote_chunk_cache_misses_total"),
                                                               total("strata_remote_chunk_cache_hits_total")))
        over = {b: m.get("strata_remote_chunk_cache_bytes") for b, m in scraped.items()
                if m.get("strata_remote_chunk_cache_bytes", 0) > CHUNK_CACHE}
        cluster.check(not over, f"chunk caches over {CHUNK_CACHE} bytes: {over}")
        if not remote_dir:
            received = total('strata_remote_store_bytes_total{direction="received"}')
            read_remote = sum(s["size_in_bytes"] for s in tiers["remote_segments"] if s["end_offset"] < local_start)
            cluster.check(total("strata_remote_store_requests_total") > 0 and received >= read_remote,
                          f"the store answered {received} bytes; the readers read {read_remote} from it")

        # A corrupted remote object: KAFKA_STORAGE_ERROR for those offsets, the rest served.
        # (The readers above went on past the first segment by far more than the leader's
        # chunk cache holds: its blocks are read from the store again, and checked.)
        first = min(tiers["remote_segments"], key=lambda s: s["start_offset"])
        tier.corrupt(remote, first["segment_id"], 4096)
        code = leader_fetch_error(cluster, TOPIC, 0)
        cluster.check(code == KAFKA_STORAGE_ERROR, f"a fetch of a corrupted remote segment got error {code}")
        cluster.check(leader_fetch_error(cluster, TOPIC, first["end_offset"] + 1) == 0,
                      "the next remote segment is not served after a corrupted one")
        cluster.check(leader_fetch_error(cluster, TOPIC, end - 10) == 0, "the local tail is not served after a remote error")

        # DeleteRecords past the corrupted copy, into the middle of the next one: the
        # leader moves the log start of both tiers through the controller and answers
        # once every replica has it; the copies below go, the corrupted one with them.
        second = min((s for s in tiers["remote_segments"] if s["start_offset"] > first["end_offset"]),
                     key=lambda s: s["start_offset"])
        cut = second["start_offset"] + 7
        leader = cluster.partition(TOPIC, 0)["leader"]
        with connect_when_listening(cluster.address(leader), 30) as sock:
            low, code = delete_records(sock, TOPIC, 0, cut)
        cluster.check(code == 0 and low == cut, f"DeleteRecords below {cut}: low watermark {low}, error {code}")
        log(f"DeleteRecords below {cut}: low watermark {low}, error {code}")
        cluster.check(describe_tiers(cluster)["log_start_offset"] == cut,
                      f"the log start after DeleteRecords: {describe_tiers(cluster)['log_start_offset']}, not {cut}")
        cluster.wait_for("the copies below the new log start are deleted",
                         lambda: all(s["end_offset"] >= cut for s in describe_tiers(cluster)["remote_segments"]), 60)
        cluster.check(first["segment_id"] not in tier.objects(remote), "the corrupted copy's object outlived DeleteRecords")
        cluster.check(leader_fetch_error(cluster, TOPIC, cut - 1) == OFFSET_OUT_OF_RANGE,
                      f"offset {cut - 1}, below the log start, is still served")
        cluster.check(leader_fetch_error(cluster, TOPIC, cut) == 0, f"offset {cut}, the new log start, is not served")
        probe = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "tiered-test-times"})
        try:
            answer = probe.offsets_for_times([TopicPartition(TOPIC, 0, got[0][2])], timeout=30)[0]
            cluster.check(answer.error is None and answer.offset == cut,
                          f"offsets_for_times of the first record's time after DeleteRecords: {answer.offset} "
                          f"({answer.error}), not {cut}")
        finally:
            probe.close()

        # retention.ms deletes the remote copies; the log start moves.
        cluster.strata("configs", "alter", "--topic", TOPIC, "--set", "retention.ms=1000")
        cluster.wait_for("retention.ms deletes the remote copies", lambda: describe_tiers(cluster)["remote_segments"]
                         == [], 60, state=lambda: len(describe_tiers(cluster)["remote_segments"]))
        left = tier.objects(remote)
        cluster.check(not left, f"remote objects left: {sum(left.values())} bytes in {len(left)}")
        start = describe_tiers(cluster)["log_start_offset"]
        cluster.check(start > 0, f"the log start offset is {start}")

        # A deleted topic's objects go.
        cluster.create_topic("doomed", 1, 3, {"remote.storage.enable": "true", "segment.bytes": SEGMENT,
                                              "min.insync.replicas": 2})
        doomed = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "linger.ms": 5,
                           "batch.size": 256 * 1024})
        for n in range(4 * 1024):
            while True:
                try:
                    doomed.produce("doomed", value=record_value(n), partition=0)
                    break
                except BufferError:
                    doomed.poll(0.05)
        cluster.require(doomed.flush(60) == 0, "records to doomed had no delivery report")
        cluster.wait_for("doomed's rolled segments are copied",
                         lambda: tiered_harness.tiers(cluster, "doomed")["remote_segment_count"] >= 2, 60)
        doomed_names = [p for p in tier.partitions() if p != remote]
        cluster.require(len(doomed_names) == 1 and tier.objects(doomed_names[0]),
                        f"doomed's objects: {doomed_names}")
        kept = tier.objects(remote, "")
        cluster.strata("topics", "delete", "doomed")
        cluster.wait_for("the deleted topic's remote objects are deleted",
                         lambda: not tier.objects(doomed_names[0], ""), 60,
                         state=lambda: len(tier.objects(doomed_names[0], "")))
        cluster.check(tier.objects(remote, "") == kept, "the remaining topic's objects changed with the deletion")
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
