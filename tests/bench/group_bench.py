"""Consumer-group figures (issue 17), each against a baseline measured in the same run:

  * rebalance time: a group of two confluent-kafka consumers is Stable; a third
    subscribes; the time from its subscribe() until all three hold their partitions of
    the new generation (each member's on_assign). Ten rounds (the third leaves between
    them); the median and the range. librdkafka's members learn of a rebalance from
    their next heartbeat, so the figure is bounded below by heartbeat.interval.ms, which
    is printed beside it (and set to Kafka's default, 3 s, unless --heartbeat-ms).
  * OffsetCommit latency: one consumer commits one partition synchronously, 2,000 times;
    p50 / p99 of the call, against the latency of a one-record acks=all produce (the same
    replication path: a commit is an acks=all append to __consumer_offsets) in the same
    run.
  * consume throughput: a group of three consumers (subscribe) against three assign()
    consumers with two partitions each, reading the same 6-partition topic (N records of
    100 bytes), each consumer in a process of its own, from the moment all three hold two
    partitions each (paused until then) to the last record; three times each,
    alternating; the median of each.
1 controller + 3 brokers on 127.0.0.1, RF 3, group.initial.rebalance.delay.ms=0 (the
initial delay would otherwise be counted in the group's first join).
Prints each figure and RESULT consumer_groups {...}.
Usage: /usr/bin/python3 group_bench.py <bin dir> <strata-cluster> [records] [--heartbeat-ms N]
"""

import json
import multiprocessing
import os
import random
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cluster"))
from replication_harness import Cluster, TestFailed, log  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402

TOPIC = "bench"
PARTITIONS = 6


def fill(bootstrap, records):
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 20, "batch.size": 1 << 20,
                  "compression.type": "none", "queue.buffering.max.messages": 1000000})
    value = b"x" * 100
    for i in range(records):
        while True:
            try:
                p.produce(TOPIC, value=value, key=str(i).encode())
                break
            except BufferError:
                p.poll(0.1)
    if p.flush(120):
        raise TestFailed("the fill did not finish")


# ---- rebalance time ------------------------------------------------------------------

class Member:
    def __init__(self, bootstrap, group, heartbeat_ms):
        self.assigned_at = None
        self.generation_assigns = 0
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "latest",
                                  "enable.auto.commit": False, "heartbeat.interval.ms": heartbeat_ms,
                                  "session.timeout.ms": 30000})
        self.lock = threading.Lock()
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)

    def start(self):
        self.consumer.subscribe([TOPIC], on_assign=self.on_assign)
        self.thread.start()

    def on_assign(self, consumer, partitions):
        with self.lock:
            self.assigned_at = time.monotonic()
            self.generation_assigns += 1
            self.partitions = len(partitions)

    def run(self):
        while not self.stop:
            self.consumer.poll(0.05)

    def close(self):
        self.stop = True
        self.thread.join()
        self.consumer.close()


def rebalance_times(cluster, rounds, heartbeat_ms):
    times = []
    pair = [Member(cluster.bootstrap, "rebalance", heartbeat_ms) for _ in range(2)]
    for m in pair:
        m.start()
    cluster.wait_for("a group of two", lambda: all(m.assigned_at for m in pair) and
                     sum(m.partitions for m in pair) == PARTITIONS, 60)
    for r in range(rounds):
        # Pacing, not synchronisation: the third joins at a random phase of the pair's heartbeats.
        time.sleep(random.uniform(0, heartbeat_ms / 1000))
        before = [m.generation_assigns for m in pair]
        third = Member(cluster.bootstrap, "rebalance", heartbeat_ms)
        started = time.monotonic()
        third.start()
        cluster.wait_for("the three to be assigned",
                         lambda: third.assigned_at and all(m.generation_assigns > b for m, b in zip(pair, before)) and
                         third.partitions + sum(m.partitions for m in pair) == PARTITIONS, 60)
        done = max([third.assigned_at] + [m.assigned_at for m in pair])
        times.append((done - started) * 1000)
        log(f"round {r}: rebalance with the third member took {times[-1]:.0f} ms")
        before = [m.generation_assigns for m in pair]
        third.close()  # leaves: the pair rebalances back to three partitions each
        cluster.wait_for("the pair to take the partitions back",
                         lambda: all(m.generation_assigns > b for m, b in zip(pair, before)) and
                         sum(m.partitions for m in pair) == PARTITIONS, 60)
    for m in pair:
        m.close()
    return times


# ---- commit latency --------------------------------------------------------------------

def percentile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def commit_latencies(cluster, count):
    c = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "committer", "enable.auto.commit": False})
    c.commit(offsets=[TopicPartition(TOPIC, 0, 1)], asynchronous=False)  # finds the coordinator
    out = []
    for i in range(count):
        t = time.perf_counter()
        c.commit(offsets=[TopicPartition(TOPIC, 0, i + 2)], asynchronous=False)
        out.append((time.perf_counter() - t) * 1000)
    c.close()
    return out


def produce_latencies(cluster, count):
    p = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "linger.ms": 0})
    p.produce(TOPIC, value=b"warm", partition=0)
    p.flush(10)
    out = []
    for _ in range(count):
        t = time.perf_counter()
        p.produce(TOPIC, value=b"x" * 100, partition=0)
        p.flush(10)
        out.append((time.perf_counter() - t) * 1000)
    return out


# ---- consume throughput ----------------------------------------------------------------

def consume_process(bootstrap, mode, index, group, total, counter, assigned, go, done_at):
    """One consumer: holds its partitions paused until every consumer has its two (go),
    then reads until the consumers together read total records."""
    conf = {"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
            "enable.auto.commit": False, "fetch.wait.max.ms": 100}
    c = Consumer(conf)

    def on_assign(consumer, partitions):
        consumer.assign(partitions)
        consumer.pause(partitions)

    if mode == "assign":
        on_assign(c, [TopicPartition(TOPIC, p, 0) for p in (2 * index, 2 * index + 1)])
    else:
        c.subscribe([TOPIC], on_assign=on_assign)
    while not go.value:
        c.poll(0.05)
        assigned[index] = len(c.assignment())
    c.resume(c.assignment())
    while True:
        with counter.get_lock():
            if counter.value >= total:
                break
        msgs = c.consume(10000, 0.2)
        n = sum(1 for m in msgs if not m.error())
        if n:
            with counter.get_lock():
                counter.value += n
                if counter.value >= total and done_at.value == 0:
                    done_at.value = time.time()
    c.close()


def consume_rate(cluster, mode, round_index, total):
    counter = multiprocessing.Value("q", 0)
    assigned = multiprocessing.Array("i", 3)
    go = multiprocessing.Value("i", 0)
    done_at = multiprocessing.Value("d", 0.0)
    group = f"throughput-{mode}-{round_index}"
    procs = [multiprocessing.Process(target=consume_process,
                                     args=(cluster.bootstrap, mode, i, group, total, counter, assigned, go, done_at))
             for i in range(3)]
    for p in procs:
        p.start()
    # The clock starts once the three hold two partitions each (the group's rebalances
    # are the rebalance figure's, not this one's).
    cluster.wait_for(f"the three {mode} consumers to hold two partitions each", lambda: list(assigned) == [2, 2, 2], 60)
    started = time.time()
    go.value = 1
    for p in procs:
        p.join(300)
    if counter.value < total or done_at.value == 0:
        raise TestFailed(f"{mode}: {counter.value} of {total} records consumed")
    seconds = done_at.value - started
    return total / seconds, total * 100 / seconds / 1e6


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    heartbeat_ms = 3000
    if "--heartbeat-ms" in sys.argv:
        heartbeat_ms = int(sys.argv[sys.argv.index("--heartbeat-ms") + 1])
        args = [a for a in args if a != str(heartbeat_ms)]
    records = int(args[2]) if len(args) > 2 else 1_500_000
    overrides = {"group.initial.rebalance.delay.ms": 0, "offsets.topic.num.partitions": 6}
    with Cluster(args[0], args[1], "group-bench", overrides=overrides, budget_s=900, controllers=1) as cluster:
        cluster.create_topic(TOPIC, PARTITIONS, 3)
        fill(cluster.bootstrap, records)
        log(f"filled {TOPIC} with {records} records of 100 bytes")

        rates = {"group": [], "assign": []}
        for r in range(3):
            for mode in ("assign", "group"):
                rates[mode].append(consume_rate(cluster, mode, r, records))
                log(f"{mode} round {r}: {rates[mode][-1][0]:,.0f} records/s ({rates[mode][-1][1]:.1f} MB/s)")

        commits = commit_latencies(cluster, 2000)
        produces = produce_latencies(cluster, 2000)
        times = rebalance_times(cluster, 10, heartbeat_ms)

        median = lambda xs: statistics.median(xs)  # noqa: E731
        result = {
            "rebalance_third_member_ms_median": round(median(times)),
            "rebalance_third_member_ms_min": round(min(times)),
            "rebalance_third_member_ms_max": round(max(times)),
            "heartbeat_interval_ms": heartbeat_ms,
            "offset_commit_ms_p50": round(percentile(commits, 0.5), 2),
            "offset_commit_ms_p99": round(percentile(commits, 0.99), 2),
            "produce_acks_all_ms_p50": round(percentile(produces, 0.5), 2),
            "produce_acks_all_ms_p99": round(percentile(produces, 0.99), 2),
            "group_of_3_records_per_s": round(median([x[0] for x in rates["group"]])),
            "assign_3_records_per_s": round(median([x[0] for x in rates["assign"]])),
            "group_of_3_mb_per_s": round(median([x[1] for x in rates["group"]]), 1),
            "assign_3_mb_per_s": round(median([x[1] for x in rates["assign"]]), 1),
            "records": records,
        }
        print(f"rebalance when a third member joins: median {result['rebalance_third_member_ms_median']} ms "
              f"({result['rebalance_third_member_ms_min']}-{result['rebalance_third_member_ms_max']}) with "
              f"heartbeat.interval.ms={heartbeat_ms}")
        print(f"OffsetCommit p50 / p99: {result['offset_commit_ms_p50']} / {result['offset_commit_ms_p99']} ms; "
              f"one-record acks=all produce {result['produce_acks_all_ms_p50']} / {result['produce_acks_all_ms_p99']} ms")
        print(f"consume: group of three {result['group_of_3_records_per_s']:,} records/s "
              f"({result['group_of_3_mb_per_s']} MB/s) vs three assign() consumers "
              f"{result['assign_3_records_per_s']:,} records/s ({result['assign_3_mb_per_s']} MB/s)")
        print("RESULT consumer_groups " + json.dumps(result))
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
