"""The remote tier's object store failing under load (issue 39), with real processes.

3 controllers + 3 brokers tiering to the cluster's own S3 store (MinIO on loopback,
`strata-cluster up --object-store`) through tests/objectstore/s3_fault_proxy.py: the
brokers' rsm.config.storage.s3.endpoint.url is the proxy's, which forwards to MinIO until a
fault is armed. S3 attempts given up after 2 s, calls after 6 s. Topic `faults`: 1
partition, RF 3, remote.storage.enable, 256 KiB segments, local.retention.bytes 512 KiB,
min.insync.replicas 2; an idempotent producer with acks=all.
  * Every PUT answers 503 SlowDown, then 500 InternalError, while 12 MiB are produced:
    every record is acknowledged, none fails; no copy finishes; the brokers retry (their
    strata_remote_store_retries_total grows); no replica's local log drops a segment that
    is not copied (its first offset stays at or below the highest copied offset + 1).
  * The faults cleared: copies resume to within the active segment of the end and the
    local logs shrink.
  * Reads of the remote tier (a fetch below the local log start, each at a copy not read
    before): every GET slow (1.5 s, within the attempt timeout) answers the records;
    every GET 500 answers KAFKA_STORAGE_ERROR (retriable) while the local tail is served;
    one GET body corrupted in transit is read again and answers the records; every GET
    body corrupted answers KAFKA_STORAGE_ERROR.
  * Three consumers from offset 0 while every GET answers 500: none is given a record
    (nothing past the failure is skipped to); the faults cleared, each reads every
    acknowledged record once, in order, at its acknowledged offset, and the brokers fetch
    each block of the store once for the three (the chunk cache's misses).
Usage: /usr/bin/python3 tiered_store_faults_test.py <bin dir> <strata-cluster>
"""

import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request

from replication_harness import log
from tiered_harness import (RECORD_BYTES, InOrderConsumer, TieredCluster, first_local_offset, idempotent_producer,
                            leader_fetch_error, produce_records, tiers, wait_copied_and_shrunk)

TOPIC = "faults"
SEGMENT = 256 << 10
LOCAL_RETENTION = 512 << 10
PHASE = 6 * 1024  # records per phase
READERS = 3  # consumers of the remote tier while GETs fail
KAFKA_STORAGE_ERROR = 56
PROXY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "objectstore", "s3_fault_proxy.py")


def unused_port():
    """A port nothing listens on now, below the ephemeral range (strata-cluster's rule)."""
    for _ in range(1000):
        port = random.randint(10000, 32000)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise RuntimeError("no free port")


class FaultProxy:
    """s3_fault_proxy.py on port in front of the cluster's MinIO; stopped on exit."""

    def __init__(self, port, cluster_dir):
        with open(os.path.join(cluster_dir, "cluster.env")) as f:
            props = dict(line.strip().split("=", 1) for line in f if "=" in line)
        target = props["object.store.endpoint"].split("://", 1)[1]
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(["/usr/bin/python3", PROXY, "--listen", str(port), "--target", target],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                self.stats()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the fault proxy did not start on port {port}")
                time.sleep(0.05)  # polling a condition with a deadline

    def arm(self, **fault):
        request = urllib.request.Request(f"{self.url}/__fault", data=json.dumps(fault).encode(), method="POST")
        with urllib.request.urlopen(request, timeout=10):
            pass
        log(f"fault proxy: {fault}")

    def stats(self):
        with urllib.request.urlopen(f"{self.url}/__stats", timeout=10) as r:
            return json.loads(r.read())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.process.kill()
        self.process.wait()


def remote_read_errors(cluster):
    return sum(cluster.scrape(b).get("strata_remote_read_errors_total", 0) for b in cluster.brokers)


def chunk_cache_misses(cluster):
    return sum(cluster.scrape(b).get("strata_remote_chunk_cache_misses_total", 0) for b in cluster.brokers)


def store_retries(cluster):
    return sum(cluster.scrape(b).get("strata_remote_store_retries_total", 0) for b in cluster.brokers)


def main():
    port = unused_port()
    overrides = {"rsm.config.storage.s3.endpoint.url": f"http://127.0.0.1:{port}",
                 "rsm.config.storage.s3.api.call.timeout": 6000,
                 "rsm.config.storage.s3.api.call.attempt.timeout": 2000,
                 "remote.log.manager.task.retry.backoff.max.ms": 1000}
    with TieredCluster(sys.argv[1], sys.argv[2], "store-faults", None, budget_s=400, overrides=overrides) as cluster, \
            FaultProxy(port, cluster.dir) as proxy:
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

        # Uploads refused: produce goes on, copies are retried, nothing uncopied leaves a disk.
        retries = store_retries(cluster)
        copied = None
        for status, code in ((503, "SlowDown"), (500, "InternalError")):
            refused = proxy.stats()["faults"]
            proxy.arm(mode="status", status=status, code=code, count=-1, methods=["PUT", "POST"])
            first = len(acked)
            produce_records(cluster, producer, TOPIC, first, PHASE, acked, failed)
            cluster.check(not failed, f"{len(failed)} records failed with uploads answered {status}, e.g. {failed[:3]}")
            # Once an upload is refused, a copy under way before the fault has finished.
            cluster.wait_for(f"an upload answered {status}", lambda: proxy.stats()["faults"] > refused, 30)
            if copied is None:
                copied = tiers(cluster, TOPIC)["highest_copied_offset"]
            # Local retention passes run every 500 ms: several of them see the refusals.
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                for b in cluster.brokers:
                    oldest = first_local_offset(cluster, b, TOPIC)
                    cluster.check(oldest is not None and oldest <= copied + 1,
                                  f"broker {b} dropped uncopied records with uploads answered {status}: its log "
                                  f"starts at {oldest}, the highest copy ends at {copied}")
                time.sleep(0.5)  # sampling the local logs across retention passes
            now = tiers(cluster, TOPIC)["highest_copied_offset"]
            cluster.check(now == copied, f"a copy finished with uploads answered {status}: {now} after {copied}")
        end = max(acked.values()) + 1
        grown = store_retries(cluster) - retries
        cluster.check(grown > 0, f"the brokers retried {grown} store calls while uploads failed")
        log(f"{len(acked)} records acknowledged, {end - 1 - copied} above the highest copy; {grown:.0f} retries")

        # Uploads answered again: copies resume, local logs shrink.
        proxy.arm(mode="clear")
        wait_copied_and_shrunk(cluster, TOPIC, end, SEGMENT, LOCAL_RETENTION, "again")
        t = tiers(cluster, TOPIC)
        local_start = t["local_log_start_offset"]
        # Copies wholly below the local log start, each read for the first time below.
        remote = sorted((s for s in t["remote_segments"] if s["end_offset"] < local_start),
                        key=lambda s: s["start_offset"])
        cluster.require(len(remote) >= 12, f"{len(remote)} copies below the local log start {local_start}")

        def fetch_at(segment):
            return leader_fetch_error(cluster, TOPIC, (segment["start_offset"] + segment["end_offset"]) // 2)

        # Slow GETs within the attempt timeout: answered.
        proxy.arm(mode="delay", ms=1500, count=3, methods=["GET"])
        code = fetch_at(remote[2])
        cluster.check(code == 0, f"a remote fetch through slow GETs got error {code}")
        # GETs answered 500 (retried until the call's 6 s are up): KAFKA_STORAGE_ERROR, the
        # local tail served meanwhile.
        proxy.arm(mode="status", status=500, code="InternalError", count=-1, methods=["GET"])
        code = fetch_at(remote[5])
        cluster.check(code == KAFKA_STORAGE_ERROR, f"a remote fetch with GETs answered 500 got error {code}")
        code = leader_fetch_error(cluster, TOPIC, end - 5)
        cluster.check(code == 0, f"the local tail was not served while GETs failed: error {code}")
        # One body corrupted in transit: read again, answered.
        proxy.arm(mode="corrupt", count=1, methods=["GET"])
        code = fetch_at(remote[8])
        cluster.check(code == 0, f"a remote fetch with one GET corrupted in transit got error {code}")
        # Every body corrupted: the checksums refuse it.
        proxy.arm(mode="corrupt", count=-1, methods=["GET"])
        code = fetch_at(remote[11])
        cluster.check(code == KAFKA_STORAGE_ERROR, f"a remote fetch of corrupt bodies got error {code}")
        log(f"fault proxy: {proxy.stats()}")

        # Several consumers on the remote tier from offset 0 while every GET fails: none is
        # given a record past the failure; the store back, each reads every acknowledged
        # record once, in order, and the brokers fetched each block once for all of them.
        proxy.arm(mode="status", status=500, code="InternalError", count=-1, methods=["GET"])
        refused, read_errors = proxy.stats()["faults"], remote_read_errors(cluster)
        readers = [InOrderConsumer(cluster, TOPIC, end, name=f"reader-{i}") for i in range(READERS)]
        for r in readers:
            r.start()
        cluster.wait_for("the consumers' remote reads fail", lambda: remote_read_errors(cluster) >= read_errors + READERS
                         and proxy.stats()["faults"] > refused, 60,
                         state=lambda: {"read errors": remote_read_errors(cluster) - read_errors,
                                        "GETs refused": proxy.stats()["faults"] - refused})
        cluster.check(all(not r.records for r in readers),
                      f"consumers were given records while every GET failed: {[len(r.records) for r in readers]}")
        misses = chunk_cache_misses(cluster)
        proxy.arm(mode="clear")
        for r in readers:
            r.join()
            r.check(cluster, acked)
        blocks = len([s for s in tiers(cluster, TOPIC)["remote_segments"] if s["end_offset"] < local_start])
        fetched = chunk_cache_misses(cluster) - misses
        cluster.check(fetched <= blocks, f"{READERS} consumers made the brokers fetch {fetched:.0f} blocks of "
                                         f"{blocks} one-block copies: not one fetch per block")
        log(f"{READERS} consumers read {end} records each in order after GETs failed under them; "
            f"{fetched:.0f} block fetches for {blocks} copies")
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
