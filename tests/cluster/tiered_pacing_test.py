"""Pacing the remote tier with real processes (issue 39): KIP-956's quotas and KIP-1241's
delayed upload.

One controller and one broker tiering to a directory of the test, the broker started with
remote.log.manager.copy.max.bytes.per.second and remote.log.manager.fetch.max.bytes.per.second
of 128 KiB/s (Kafka's 11 windows of 1 s). Topic `quotas`: 1 partition, RF 1,
remote.storage.enable, 256 KiB segments, local.retention.bytes 512 KiB.
  * 8 MiB produced with acks=all: the copies wait for the copy quota
    (strata_remote_copy_throttle_seconds_total grows), and the bytes copied from the
    first produce on stay within what the quota allows over that time (the rate times the
    time plus the quota's 11 windows, plus one piece: an upper bound that a slow machine
    only loosens), while the copy lag is not zero.
  * The copy quota raised as a dynamic broker config (`strata configs alter --broker`):
    copies catch up to within the active segment of the end and the local log shrinks.
  * A consumer from offset 0 reads the remote tier: the fetch quota turns fetches away
    (strata_remote_fetch_throttled_total grows; each answers no records for the
    partition, as Kafka's), and the bytes of records the consumer got from the remote tier
    stay within the same kind of bound (the quota counts what remote reads answer, as
    Kafka's does) while it has not read the remote range.
  * The fetch quota raised dynamically: the consumer reads every acknowledged record once,
    in order, at its acknowledged offset.
  * Delayed upload: topic `delayed` with remote.copy.lag.bytes of 1 MiB (and
    remote.copy.lag.ms -1: local retention's 7 days), 4 MiB produced:
    the leader copies the rolled segments that have at least 1 MiB of the log after them
    and no others (the highest copy ends 1 MiB to 1 MiB + 2 segments below the end), and
    the copy lag metric does not count the ones held back; the topic's
    remote.copy.lag.bytes set to 0 at run time: they are copied too.
Usage: /usr/bin/python3 tiered_pacing_test.py <bin dir> <strata-cluster>
"""

import os
import sys
import time

from replication_harness import log
from tiered_harness import (RECORD_BYTES, InOrderConsumer, TieredCluster, idempotent_producer, produce_records,
                            tiers, wait_copied_and_shrunk, with_remote_dir)

TOPIC = "quotas"
DELAYED = "delayed"
COPY_LAG = 1 << 20  # the delayed topic's remote.copy.lag.bytes
SEGMENT = 256 << 10
LOCAL_RETENTION = 512 << 10
RECORDS = 8 * 1024  # 8 MiB of 1 KiB records
QUOTA = 128 << 10  # bytes per second, copy and fetch
WINDOWS_S = 11  # remote.log.manager.*.quota.window.num x window.size.seconds (Kafka's defaults)
FETCH_BYTES = 256 << 10  # the consumer's max.partition.fetch.bytes: one remote read at most this
COPY = "remote.log.manager.copy.max.bytes.per.second"
FETCH = "remote.log.manager.fetch.max.bytes.per.second"


def metric(cluster, name):
    return sum(cluster.scrape(b).get(name, 0) for b in cluster.brokers)


def allowed(since, piece):
    """What a quota of QUOTA lets through from `since` (monotonic) until now: its windows
    allow the rate over at least WINDOWS_S - 1 s at once, then the rate; one piece is
    counted before the quota is looked at."""
    return QUOTA * (time.monotonic() - since + WINDOWS_S) + piece


def delayed_upload(cluster, producer):
    """KIP-1241: remote.copy.lag.bytes holds back the newest rolled segments."""
    # remote.copy.lag.ms 0 (the default) would make every segment due at once: -1 takes
    # local retention's time (retention.ms's 7 days), which no segment here reaches.
    cluster.create_topic(DELAYED, 1, 1, {"remote.storage.enable": "true", "segment.bytes": SEGMENT,
                                         "remote.copy.lag.bytes": COPY_LAG, "remote.copy.lag.ms": -1})
    cluster.wait_for("the delayed topic settles", lambda: cluster.settled(DELAYED), 30)
    acked, failed = {}, []
    produce_records(cluster, producer, DELAYED, 0, 4 * COPY_LAG // RECORD_BYTES, acked, failed)
    cluster.check(not failed, f"{len(failed)} records failed, e.g. {failed[:3]}")
    end = max(acked.values()) + 1
    # The copies stop where the 1 MiB after a segment runs out: within two segments of it
    # (records are a little larger than RECORD_BYTES in the log).
    lowest = end - COPY_LAG // RECORD_BYTES - 3 * SEGMENT // RECORD_BYTES
    cluster.wait_for("the leader copies what has 1 MiB after it",
                     lambda: tiers(cluster, DELAYED)["highest_copied_offset"] >= lowest, 60,
                     state=lambda: tiers(cluster, DELAYED))
    # Give the leader's task passes every chance to copy more than it should (they run
    # every 300 ms): the copy lag gauge reads 0 once it is done with what is due.
    cluster.wait_for("the copy lag settles at 0 with segments held back",
                     lambda: metric(cluster, "strata_remote_copy_lag_segments") == 0, 30)
    highest = tiers(cluster, DELAYED)["highest_copied_offset"]
    # The local segments after the highest copy: the first of them is held back, so it has
    # less than remote.copy.lag.bytes after it, while the last copy had at least that.
    after = [(int(os.path.basename(f)[:20]), os.path.getsize(f))
             for f in cluster.segments(cluster.brokers[0], DELAYED, 0) if int(os.path.basename(f)[:20]) > highest]
    behind = sum(size for _, size in after)
    cluster.check(after and after[0][0] == highest + 1, f"no local segment starts after the highest copy {highest}")
    cluster.check(behind >= COPY_LAG, f"the highest copy ends at {highest} with {behind} bytes after it, "
                                      f"less than remote.copy.lag.bytes={COPY_LAG}")
    cluster.check(len(after) < 2 or behind - after[0][1] < COPY_LAG,
                  f"the segment at {after[0][0] if after else None} has {COPY_LAG} bytes after it and was not copied")
    log(f"delayed upload: copied up to {highest} of {end} records, {behind} bytes after it "
        f"(remote.copy.lag.bytes={COPY_LAG}); no copy lag counted for the {len(after) - 1} segments held back")
    cluster.strata("configs", "alter", "--topic", DELAYED, "--set", "remote.copy.lag.bytes=0")
    cluster.wait_for("the held-back segments are copied once remote.copy.lag.bytes is 0",
                     lambda: tiers(cluster, DELAYED)["highest_copied_offset"] >= end - 2 * SEGMENT // RECORD_BYTES, 60,
                     state=lambda: tiers(cluster, DELAYED))


def main():
    with_remote_dir("pacing", run)


def run(remote_dir):
    with TieredCluster(sys.argv[1], sys.argv[2], "pacing", remote_dir, budget_s=240, controllers=1, brokers=1,
                       overrides={COPY: QUOTA, FETCH: QUOTA}) as cluster:
        cluster.create_topic(TOPIC, 1, 1, {"remote.storage.enable": "true", "segment.bytes": SEGMENT,
                                           "local.retention.bytes": LOCAL_RETENTION})
        cluster.wait_for("the partition settles", lambda: cluster.settled(TOPIC), 30)

        # Copies paced by the copy quota.
        errors, acked, failed = [], {}, []
        producer = idempotent_producer(cluster, errors)
        start, copied_before = time.monotonic(), metric(cluster, "strata_remote_copy_bytes_total")
        produce_records(cluster, producer, TOPIC, 0, RECORDS, acked, failed)
        cluster.check(not failed, f"{len(failed)} records failed, e.g. {failed[:3]}")
        end = max(acked.values()) + 1
        cluster.wait_for("a copy waits for the copy quota",
                         lambda: metric(cluster, "strata_remote_copy_throttle_seconds_total") > 0, 60)
        copied = metric(cluster, "strata_remote_copy_bytes_total") - copied_before
        bound = allowed(start, 2 * SEGMENT)  # a segment and its indexes
        lag = metric(cluster, "strata_remote_copy_lag_bytes")
        cluster.check(copied <= bound, f"{copied:.0f} bytes copied under a {QUOTA} B/s copy quota, "
                                       f"more than the {bound:.0f} it allows since the first record")
        cluster.check(lag > 0, f"the copy lag is {lag:.0f} bytes with {RECORDS} KiB produced under the copy quota")
        log(f"copy quota: {copied:.0f} bytes copied of {RECORDS * RECORD_BYTES} produced "
            f"({time.monotonic() - start:.1f} s, bound {bound:.0f}), lag {lag:.0f} bytes")

        # The copy quota raised at run time: copies catch up.
        cluster.strata("configs", "alter", "--broker", "--set", f"{COPY}={1 << 30}")
        wait_copied_and_shrunk(cluster, TOPIC, end, SEGMENT, LOCAL_RETENTION, "with the copy quota raised")
        local_start = tiers(cluster, TOPIC)["local_log_start_offset"]
        remote_bytes = local_start * RECORD_BYTES

        # Remote reads turned away by the fetch quota.
        read_before = metric(cluster, "strata_remote_read_bytes_total")
        throttled_before = metric(cluster, "strata_remote_fetch_throttled_total")
        start = time.monotonic()
        reader = InOrderConsumer(cluster, TOPIC, end, name="quota-reader", timeout=150,
                                 config={"max.partition.fetch.bytes": FETCH_BYTES, "fetch.max.bytes": FETCH_BYTES,
                                         "message.max.bytes": FETCH_BYTES})
        reader.start()
        # Several fetches turned away: the consumer has what the fetches before them answered.
        cluster.wait_for("fetches are turned away by the fetch quota",
                         lambda: cluster.require(reader.failure is None, reader.failure or "") or
                         metric(cluster, "strata_remote_fetch_throttled_total") >= throttled_before + 3, 60)
        # The quota counts what remote reads answer (Kafka's), here all to this consumer;
        # the chunk cache's prefetch runs at most its prefetch.max.size ahead of that.
        bound = allowed(start, FETCH_BYTES)
        served = sum(len(value) for _, value in reader.records)
        at = len(reader.records)
        fetched = metric(cluster, "strata_remote_read_bytes_total") - read_before
        cluster.check(served <= bound, f"{served} bytes of records read from the remote tier under a {QUOTA} B/s "
                                       f"fetch quota, more than the {bound:.0f} it allows")
        cluster.check(at < local_start, f"the consumer read {at} records, past the remote range ({local_start}), "
                                        f"while the fetch quota turned fetches away")
        log(f"fetch quota: the consumer had {served} bytes of records of {remote_bytes} remote "
            f"({time.monotonic() - start:.1f} s, bound {bound:.0f}); the store read {fetched:.0f} (prefetch included)")

        # The fetch quota raised at run time: the consumer reads everything.
        cluster.strata("configs", "alter", "--broker", "--set", f"{FETCH}={1 << 30}")
        reader.join()
        reader.check(cluster, acked)
        throttled = metric(cluster, "strata_remote_fetch_throttled_total") - throttled_before
        log(f"the consumer read {len(reader.records)} records in order once the fetch quota was raised "
            f"({throttled:.0f} partition fetches turned away)")
        delayed_upload(cluster, producer)
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
