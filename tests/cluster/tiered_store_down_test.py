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

import sys
import time

from replication_harness import log
from tiered_harness import (RECORD_BYTES, TieredCluster, check_acked, first_local_offset, idempotent_producer,
                            leader_fetch_error, produce_records, tiers, wait_copied_and_shrunk)

TOPIC = "down"
SEGMENT = 256 << 10
LOCAL_RETENTION = 512 << 10
PHASE = 6 * 1024  # records per phase
KAFKA_STORAGE_ERROR = 56


def main():
    overrides = {"rsm.config.storage.s3.api.call.timeout": 3000,
                 "rsm.config.storage.s3.api.call.attempt.timeout": 1000,
                 "remote.log.manager.task.retry.backoff.max.ms": 1000}
    with TieredCluster(sys.argv[1], sys.argv[2], "store-down", None, budget_s=300, overrides=overrides) as cluster:
        cluster.create_topic(TOPIC, 1, 3, {"remote.storage.enable": "true", "segment.bytes": SEGMENT,
                                           "local.retention.bytes": LOCAL_RETENTION, "min.insync.replicas": 2})
        cluster.wait_for("the partition settles", lambda: cluster.settled(TOPIC), 30)
        errors = []
        producer = idempotent_producer(cluster, errors)
        acked, failed = {}, []
        produce_records(cluster, producer, TOPIC, 0, PHASE, acked, failed)
        end = max(acked.values()) + 1
        cluster.wait_for("the leader copies what rolled", lambda: tiers(cluster, TOPIC)["highest_copied_offset"]
                         >= end - 2 * SEGMENT // RECORD_BYTES, 60, state=lambda: tiers(cluster, TOPIC))

        # The store down: produce goes on, nothing uncopied leaves a local disk.
        cluster.cluster("kill", "object-store")
        log("kill -9 of the object store")
        copied = tiers(cluster, TOPIC)["highest_copied_offset"]
        produce_records(cluster, producer, TOPIC, PHASE, PHASE, acked, failed)
        cluster.check(not failed, f"{len(failed)} records failed with the store down, e.g. {failed[:3]}")
        end = max(acked.values()) + 1
        log(f"{len(acked)} records acknowledged, {end - 1 - copied} of them above the highest copy {copied}")
        # Local retention passes run every 500 ms: several of them see the store down.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            for b in cluster.brokers:
                first = first_local_offset(cluster, b, TOPIC)
                if not cluster.check(first is not None and first <= copied + 1,
                                     f"broker {b} dropped uncopied records: its log starts at {first}, "
                                     f"the highest copy ends at {copied}"):
                    break
            time.sleep(0.5)  # sampling the local logs across retention passes
        now = tiers(cluster, TOPIC)
        cluster.check(now["highest_copied_offset"] == copied,
                      f"a copy finished with the store down: {now['highest_copied_offset']} after {copied}")
        code = leader_fetch_error(cluster, TOPIC, 0)
        cluster.check(code == KAFKA_STORAGE_ERROR, f"a fetch of offset 0 with the store down got error {code}")
        code = leader_fetch_error(cluster, TOPIC, end - 5)
        cluster.check(code == 0, f"the local tail was not served with the store down: error {code}")

        # The store back: copies resume, local logs shrink, every record reads back.
        cluster.cluster("start", "object-store")
        log("the object store started again")
        wait_copied_and_shrunk(cluster, TOPIC, end, SEGMENT, LOCAL_RETENTION, "again")
        check_acked(cluster, TOPIC, acked)
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
