"""The follower tier state machine with real processes (issue 15): a follower rebuilt on an
empty disk fetches only the untiered tail (KIP-1023), rebuilds its leader-epoch cache and
producer state from the remote tier, and serves every offset once it leads; and the
empty remote range (seed KAFKA-21190) needs no remote lookup.

3 controllers + 3 brokers with follower.fetch.last.tiered.offset.enable and one shared
remote.log.storage.path (or with `--backend s3` one bucket of an S3 object store, MinIO on
loopback). Topic `tail`: RF 3, remote.storage.enable, 1 MiB segments,
local.retention.bytes 2 MiB, min.insync.replicas 1.
  * 30 MiB from one idempotent producer (acks=all); the leader copies all but the tail.
  * A follower is killed, its partition dir wiped (a lost disk), and started: it restarts its log at
    the leader's earliest pending upload offset with the state from the remote tier (its
    log line says so), holds only the untiered tail (its dir stays under 4 MiB, not
    30), and is back in the ISR.
  * The other two brokers are killed: the rebuilt follower leads. The same idempotent
    producer goes on through it without OUT_OF_ORDER_SEQUENCE_NUMBER (its producer state
    came from the remote tier), and a consumer from offset 0 reads every acknowledged
    record once, in order, from the remote tier and its local tail.
  * Seed KAFKA-21190: topic `pruned` with retention.ms short enough that every remote
    copy is deleted; its log start moves past them. A follower wiped then starts at the
    leader's log start, which equals the earliest pending upload: the remote range is
    empty, no remote lookup is made, and it joins the ISR (before the fix it failed
    with a missing remote segment and stayed out).
Usage: /usr/bin/python3 tiered_follower_test.py <bin dir> <strata-cluster> [--backend filesystem|s3]
"""

import re
import shutil
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

from replication_harness import TestFailed, client_error_logger, log
from tiered_harness import TieredCluster, backend_from_argv, dir_bytes, tiers, with_remote_dir

SEGMENT = 1 << 20
VALUE = 1024


class IdempotentProducer:
    """One producer for the whole test: its sequence numbers carry across leaders."""

    def __init__(self, cluster, topic):
        self.errors = []
        self.topic = topic
        self.acked = {}
        self.failed = []
        self.producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "enable.idempotence": True,
                                  "linger.ms": 10, "message.timeout.ms": 60000, "log_level": 2,
                                  "error_cb": client_error_logger("producer", self.errors)})
        self.sent = 0

    def send(self, count):
        for _ in range(count):
            n = self.sent
            self.sent += 1

            def report(err, msg, n=n):
                if err is None:
                    self.acked[n] = msg.offset()
                else:
                    self.failed.append((n, err))
            while True:
                try:
                    self.producer.produce(self.topic, value=f"{n:09d}:".encode() + b"v" * (VALUE - 10), partition=0,
                                          on_delivery=report)
                    break
                except BufferError:
                    self.producer.poll(0.05)
            self.producer.poll(0)
        return self.producer.flush(60)


def read_all(cluster, topic, end, timeout=120):
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "tiered-follower-unused",
                         "enable.auto.commit": False})
    got = []
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        deadline = time.monotonic() + timeout
        while not got or got[-1][0] < end - 1:
            if time.monotonic() > deadline:
                raise TestFailed(f"read {len(got)} records of {topic} in {timeout} s, not to {end}")
            for msg in consumer.consume(2000, timeout=0.5):
                if msg.error() is None:
                    got.append((msg.offset(), int(msg.value()[:9])))
                elif msg.error().code() != KafkaError._PARTITION_EOF:
                    log(f"consumer: {msg.error()}")
    finally:
        consumer.close()
    return got


def rebuild(cluster, broker, topic):
    """Kills broker (kill -9), wipes its replica of topic-0 (a lost disk) and starts it again."""
    cluster.kill9(broker)
    shutil.rmtree(cluster.partition_dir(broker, topic, 0))
    cluster.start(broker)


def main():
    with_remote_dir("tiered-follower", run, backend_from_argv(sys.argv))


def run(remote_dir):
    with TieredCluster(sys.argv[1], sys.argv[2], "tiered-follower", remote_dir, budget_s=300,
                       overrides={"follower.fetch.last.tiered.offset.enable": "true"}) as cluster:
        # Seed KAFKA-21190 first: every remote copy deleted by retention.
        cluster.create_topic("pruned", 1, 3, {"remote.storage.enable": "true", "segment.bytes": SEGMENT,
                                              "retention.ms": 3000, "min.insync.replicas": 1})
        pruned = IdempotentProducer(cluster, "pruned")
        cluster.require(pruned.send(5 * 1024) == 0, "records to pruned had no delivery report")
        cluster.wait_for("pruned's remote copies and rolled segments are deleted by retention",
                         lambda: tiers(cluster, "pruned")["remote_segment_count"] == 0 and
                         tiers(cluster, "pruned")["log_start_offset"] > 0, 60, state=lambda: tiers(cluster, "pruned"))
        start = tiers(cluster, "pruned")["log_start_offset"]
        leader = cluster.partition("pruned", 0)["leader"]
        follower = next(b for b in cluster.brokers if b != leader)
        rebuild(cluster, follower, "pruned")
        cluster.wait_for(f"the rebuilt broker {follower} registers anew and is back in pruned's ISR",
                         lambda: cluster.settled("pruned"), 60)
        text = cluster.server_log(follower)
        # Retention may move the log start on between the read above and the restart.
        restart = re.search(r"pruned-0 ends at 0, .* restarting the log at (\d+) .*no remote lookup", text)
        cluster.check(restart is not None and int(restart.group(1)) >= start,
                      f"broker {follower} did not restart pruned-0 at its leader's log start (>= {start}) without "
                      f"a remote lookup")
        cluster.check("cannot build the state" not in text, "the empty remote range was looked up remotely")

        # KIP-1023: a follower rebuilt on an empty disk fetches only the untiered tail.
        cluster.create_topic("tail", 1, 3, {"remote.storage.enable": "true", "segment.bytes": SEGMENT,
                                            "local.retention.bytes": 2 * SEGMENT, "min.insync.replicas": 1})
        producer = IdempotentProducer(cluster, "tail")
        cluster.require(producer.send(30 * 1024) == 0, "records had no delivery report")
        end = max(producer.acked.values()) + 1
        cluster.wait_for("the leader copies all but the tail",
                         lambda: tiers(cluster, "tail")["highest_copied_offset"] >= end - 3 * SEGMENT // VALUE, 60)
        leader = cluster.partition("tail", 0)["leader"]
        follower = next(b for b in cluster.brokers if b != leader)
        rebuild(cluster, follower, "tail")
        cluster.wait_for(f"the rebuilt broker {follower} registers anew and is back in tail's ISR",
                         lambda: cluster.settled("tail"), 60)
        text = cluster.server_log(follower)
        cluster.check("from the remote tier" in text, f"broker {follower} did not restore tail-0 from the remote tier")
        held = dir_bytes(cluster.partition_dir(follower, "tail", 0))
        cluster.check(held < 4 * SEGMENT, f"the rebuilt follower holds {held} bytes locally, not the untiered tail")
        log(f"rebuilt follower {follower} holds {held} bytes of tail-0 locally")

        # It leads: the producer goes on in sequence, and every offset is readable.
        for b in cluster.brokers:
            if b != follower:
                cluster.kill9(b)
        cluster.wait_for(f"broker {follower} leads tail-0", lambda: cluster.partition("tail", 0)["leader"] == follower,
                         60)
        cluster.require(producer.send(2 * 1024) == 0, "records after the leader change had no delivery report")
        cluster.check(not producer.failed, f"{len(producer.failed)} records failed, e.g. {producer.failed[:3]}")
        cluster.check(not any("OUT_OF_ORDER" in e for e in producer.errors), f"producer errors {producer.errors[:3]}")
        end = max(producer.acked.values()) + 1
        got = read_all(cluster, "tail", end)
        offsets = {n: o for o, n in got}
        cluster.check(len(offsets) == len(got), "a value read twice")
        missing = [n for n, o in producer.acked.items() if offsets.get(n) != o]
        cluster.check(not missing, f"{len(missing)} acknowledged values missing or moved, e.g. {missing[:5]}")
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
