#!/usr/bin/python3
"""Failover probe for replication_bench.sh: kill -9 of a partition leader, timed.

A librdkafka producer (python3-confluent-kafka, a new one each run) sends one record at
a time to partition 0 with acks=all (linger.ms=0) and waits for its delivery report.
Each run: wait until the partition has its full ISR, send WARMUP records, SIGKILL the
leader between two acknowledgements (nothing is in flight, so the next acknowledgement
can only come from a new leader), send the next record at once and time its
acknowledgement (acked_ms, from just before the kill). The dead broker is restarted
(strata-cluster start) before the next run.

Each run is broken down (all in ms since the kill) from
  * the server logs (wall clock, ms): the active controller's "broker N lost its
    session stream" or "broker N missed its session" (fenced_ms: fencing and the new
    leader, one metadata write, logged once committed), the new leader's "T-0 leads in leader epoch E" (leader_applied_ms) and
    the other follower's "T-0 follows in leader epoch E" (follower_applied_ms);
  * a metadata poller (a second librdkafka client asking the surviving brokers every
    POLL_MS ms until the acknowledgement): the first answer naming a new leader
    (metadata_new_leader_ms; null when no answer named it before the acknowledgement);
  * librdkafka's own "topic" debug line "migrating from broker N" (client_moved_ms):
    when the producer moved the partition to the new leader.
Environment: RDKAFKA_DEBUG adds librdkafka debug contexts (e.g. broker,msg,protocol);
FAILOVER_LOG names a file that gets every librdkafka line of each run, in ms since the
kill.
Prints one JSON object per run on stdout; progress on stderr.
Usage: replication_failover.py --bootstrap B --topic T --cluster-dir D --cluster CMD
       [--runs 10] [--client tuned|default] [--warmup 20] [--poll-ms 5]
"""
import argparse
import datetime
import json
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient

# Client settings. Both: acks=all, one record per request, no Nagle. "tuned" also makes
# librdkafka look for a new leader quickly; "default" keeps librdkafka 2.0's defaults
# for those (refresh 300000, fast refresh 250 doubling, retry backoff 100, reconnect
# backoff 100 doubling to 10000): the producer then finds the new leader only through
# its once-a-second scan of partitions whose broker is down (its fast leader query runs
# once at the disconnect, and is answered with the old leader until it is fenced).
COMMON = {"acks": "all", "linger.ms": 0, "socket.nagle.disable": True, "enable.idempotence": False}
TUNED = {
    "topic.metadata.refresh.interval.ms": 100,
    "topic.metadata.refresh.fast.interval.ms": 10,
    "retry.backoff.ms": 10,
    "reconnect.backoff.ms": 10,
    "reconnect.backoff.max.ms": 100,
}
LOG_LINE = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\] \[node (\d+)\] \[\w+\] (.*)$")


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def wall(stamp):
    return datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f").timestamp()


def server_events(cluster_dir, since):
    """(wall time, node, message) of every server log line at or after `since` (s)."""
    events = []
    for node in sorted(os.listdir(cluster_dir)):
        path = os.path.join(cluster_dir, node, "server.log")
        if not node.startswith("node-") or not os.path.exists(path):
            continue
        with open(path, errors="replace") as f:
            for line in f:
                m = LOG_LINE.match(line)
                if m and wall(m.group(1)) >= since - 0.0005:  # the log keeps ms
                    events.append((wall(m.group(1)), int(m.group(2)), m.group(3)))
    return sorted(events)


class Probe:
    def __init__(self, args):
        self.args = args
        self.config = dict(COMMON, **({"bootstrap.servers": args.bootstrap}))
        if args.client == "tuned":
            self.config.update(TUNED)
        # librdkafka's "topic" debug lines say when the producer moved the partition to a
        # new leader; they reach the handler from poll(), which the send loop runs.
        self.migrations = []
        handler = logging.Handler()
        handler.emit = lambda record: self.migrations.append((time.monotonic(), record.getMessage()))
        rdkafka_log = logging.getLogger("rdkafka")
        rdkafka_log.addHandler(handler)
        rdkafka_log.propagate = False
        rdkafka_log.setLevel(logging.DEBUG)
        # RDKAFKA_DEBUG adds contexts (e.g. broker,msg,metadata) and FAILOVER_LOG names a
        # file that gets every librdkafka line of each run, in ms since the kill.
        debug = ",".join(["topic"] + [c for c in os.environ.get("RDKAFKA_DEBUG", "").split(",") if c])
        self.config.update({"debug": debug, "logger": rdkafka_log})
        self.producer = None
        self.admin = AdminClient({"bootstrap.servers": args.bootstrap})

    def partition(self, admin=None):
        md = (admin or self.admin).list_topics(self.args.topic, timeout=2)
        return md.topics[self.args.topic].partitions[0]

    def send_one(self):
        """Sends one record; returns (monotonic time of its delivery report, error or None)."""
        done = []

        def report(err, msg):
            done.append((time.monotonic(), err))

        self.producer.produce(self.args.topic, value=b"x" * 1024, partition=0, on_delivery=report)
        while not done:
            self.producer.poll(1)
        return done[0]

    def wait_full_isr(self, replicas, deadline_s=120):
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            try:
                p = self.partition()
                if p.leader >= 0 and len(p.isrs) == replicas:
                    return p
            except Exception:  # a broker restarting: ask again
                pass
            time.sleep(0.1)  # polling the ISR
        raise SystemExit("the ISR did not come back to %d replicas within %d s" % (replicas, deadline_s))

    def run_once(self, index):
        p = self.wait_full_isr(len(self.partition().replicas))
        old_leader = p.leader
        # A new producer each run: librdkafka keeps backing off reconnects to a broker
        # that was down (up to reconnect.backoff.max.ms, 10 s by default), which would
        # charge an earlier run's kill to this one when its victim becomes the leader.
        if self.producer is not None:
            self.producer.flush(10)
        self.producer = Producer(self.config)
        steady = []
        for _ in range(self.args.warmup):
            t0 = time.monotonic()
            t1, err = self.send_one()
            if err is None:
                steady.append(t1 - t0)
        if self.partition().leader != old_leader:
            return None  # the leadership moved by itself during the warm-up: not a clean run
        with open(os.path.join(self.args.cluster_dir, "node-%d" % old_leader, "pid")) as f:
            pid = int(f.read())

        # The metadata poller: its own client, bootstrapped with the surviving brokers only.
        survivors = [b for b in self.args.bootstrap.split(",") if b != self.broker_address(old_leader)]
        poll_admin = AdminClient({"bootstrap.servers": ",".join(survivors)})
        self.partition(poll_admin)  # connected before the kill
        seen = {}
        stop = threading.Event()

        def poll():
            while not stop.is_set():
                try:
                    leader = self.partition(poll_admin).leader
                except Exception:
                    leader = None
                if leader is not None and leader not in (old_leader, -1) and "new_leader" not in seen:
                    seen["new_leader"] = (time.monotonic(), leader)
                time.sleep(self.args.poll_ms / 1000)  # polling Metadata

        self.migrations.clear()
        kill_wall = time.time()
        kill_mono = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        poller = threading.Thread(target=poll)
        poller.start()
        errors = 0
        while True:
            t, err = self.send_one()
            if err is None:
                break
            errors += 1  # a delivery failure: librdkafka gave up on a record; send the next
        acked = t - kill_mono
        stop.set()
        poller.join()
        time.sleep(0.2)  # lets the servers flush their log lines
        events = server_events(self.args.cluster_dir, kill_wall)
        topic_p = "%s-0" % self.args.topic

        def first(pattern):
            for w, node, msg in events:
                if re.search(pattern, msg):
                    return w - kill_wall, node, msg
            return None

        # Fenced when its session stream broke (the process is gone), or when its session ran out.
        fenced = first(r"broker %d (missed its session|lost its session stream)" % old_leader)
        leads = first(r"%s leads in leader epoch" % re.escape(topic_p))
        follows = first(r"%s follows in leader epoch" % re.escape(topic_p))
        if os.environ.get("FAILOVER_LOG"):
            with open(os.environ["FAILOVER_LOG"], "a") as f:
                f.write("=== run %d: killed %d\n" % (index, old_leader))
                for t, m in self.migrations:
                    f.write("%9.1f %s\n" % ((t - kill_mono) * 1000, m))
        moved = [t for t, m in self.migrations if "migrating from broker %d" % old_leader in m]
        result = {
            "run": index,
            "killed": old_leader,
            "new_leader": leads[1] if leads else None,
            "acked_ms": round(acked * 1000, 1),
            "fenced_ms": round(fenced[0] * 1000) if fenced else None,
            "leader_applied_ms": round(leads[0] * 1000) if leads else None,
            "follower_applied_ms": round(follows[0] * 1000) if follows else None,
            "metadata_new_leader_ms": round((seen["new_leader"][0] - kill_mono) * 1000, 1) if "new_leader" in seen else None,
            "client_moved_ms": round((moved[0] - kill_mono) * 1000, 1) if moved else None,
            "delivery_errors": errors,
            "steady_ack_p50_ms": round(sorted(steady)[len(steady) // 2] * 1000, 2) if steady else None,
        }
        log("run %d: killed broker %d -> new leader %s, acked after %.1f ms (fenced %s ms, metadata %s ms)" % (
            index, old_leader, result["new_leader"], result["acked_ms"], result["fenced_ms"],
            result["metadata_new_leader_ms"]))
        gone_by = time.monotonic() + 10
        while time.monotonic() < gone_by:  # until it is reaped: strata-cluster start refuses a live pid
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)  # waiting for the dead process to be reaped
        subprocess.run([self.args.cluster, "start", "--dir", self.args.cluster_dir, str(old_leader)], check=True)
        return result

    def broker_address(self, broker_id):
        md = self.admin.list_topics(timeout=2)
        b = md.brokers[broker_id]
        return "%s:%d" % (b.host, b.port)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--cluster-dir", required=True)
    ap.add_argument("--cluster", required=True)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--client", choices=["tuned", "default"], default="tuned")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--poll-ms", type=float, default=5)
    args = ap.parse_args()
    probe = Probe(args)
    done = 0
    attempts = 0
    while done < args.runs:
        attempts += 1
        if attempts > args.runs * 2:
            raise SystemExit("too many runs where the leadership moved during the warm-up")
        r = probe.run_once(done + 1)
        if r is None:
            log("the leadership moved during the warm-up; again")
            continue
        r["client"] = args.client
        print(json.dumps(r), flush=True)
        done += 1


if __name__ == "__main__":
    main()
