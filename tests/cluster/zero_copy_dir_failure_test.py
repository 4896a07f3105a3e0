"""A disk error under a fetch takes the leader's log dir offline and loses, skips,
duplicates or corrupts nothing a consumer reads (seed 000, KAFKA-16304; issue 13).

3 controllers + 3 brokers (real processes), every node started with
libstrata_fault_preload.so (tests/fault_preload/README.md) preloaded and one shared
rules file in the test's dir, empty at first. Topic `zc`: 1 partition, RF 3,
min.insync.replicas 2, one segment (segment.bytes 1 GiB).
  * 20,000 records with distinct values (index and sha256 embedded, 300 bytes) are
    produced with acks=all (idempotent), every one acknowledged at offset = index; every
    ISR member then checkpoints the high watermark 20,000, and all replicas hold the same
    bytes.
  * On the leader L only (the path names node-L's dir), reads and sendfiles of the
    second half of the segment ([size/2, max)) fail with EIO (the rules file is renamed
    into place; the test waits for L to load it).
  * A fresh consumer (assign offset 0, auto.offset.reset=error, check.crcs=true) reads
    the partition: over PLAINTEXT the leader sends records with sendfile (zero copy),
    over SSL it reads them into memory and encrypts. It must get offsets 0..19,999 once
    each, in order, every value byte for byte as produced. Retriable errors on the way
    are fine; a fatal one, a CRC error or an offset reset is not.
  * Then: faults fired in L (the fault log); L's server.log says its log dir went offline
    after a failed send whose re-read failed (the seed's path: a failed transfer is
    re-read on the scheduler, and a read error offlines the dir); the controller shows
    L's dir offline, the leadership on another broker, L out of the ISR; and L, whose
    only log dir failed, stopped: the process is gone, its log has the "every log dir
    has failed" line, and its exit code is 71 (this process is the child subreaper of the
    nodes, so it reaps them).
Usage: /usr/bin/python3 zero_copy_dir_failure_test.py <bin dir> <strata-cluster>
                        <libstrata_fault_preload.so> plaintext|ssl
"""

import ctypes
import hashlib
import os
import re
import sys
import threading
import time

from confluent_kafka import Consumer, KafkaError, TopicPartition

from replication_harness import Cluster, TestFailed, log, produce_values, write_fault_rules

TOPIC = "zc"
RECORDS = 20000
VALUE_BYTES = 300
EXIT_EVERY_LOG_DIR_FAILED = 71  # server/main.cc

overrides = {
    "broker.session.timeout.ms": 2000,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": 3000,
    "replica.fetch.backoff.ms": 100,
    "replica.high.watermark.checkpoint.interval.ms": 200,
}

# pid=4242 fault EIO pread /tmp/t/logs/orders-0/00000000000000000000.log offset=600000 count=4096 rule=1
FAULT_LINE = re.compile(r"^pid=(\d+) fault (\S+) (\S+) (.*) offset=(\d+) count=(\d+) rule=(\d+)$")


def value(i):
    """Record i's value: its index, then sha256-derived bytes, VALUE_BYTES in all."""
    digest = hashlib.sha256(f"strata-seed0-{i}".encode()).hexdigest()
    return (f"zc-{i:05d}-" + digest * (VALUE_BYTES // len(digest) + 1))[:VALUE_BYTES]


class NodeExits:
    """The exit codes of the nodes. strata-cluster starts them in the background (nohup ...
    &) and exits, so they are nobody's children; with PR_SET_CHILD_SUBREAPER they become
    this process's, and a thread reaps the pids it is told to watch (only those: the
    subprocess module reaps its own). Without the prctl the codes stay unknown."""

    PR_SET_CHILD_SUBREAPER = 36

    def __init__(self):
        libc = ctypes.CDLL(None, use_errno=True)
        self.enabled = libc.prctl(self.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        self.lock = threading.Lock()
        self.watched = set()
        self.codes = {}  # pid -> exit code (negative: killed by that signal), None: not our child
        if self.enabled:
            threading.Thread(target=self._run, daemon=True).start()

    def watch(self, pid):
        with self.lock:
            self.watched.add(pid)

    def code(self, pid):
        with self.lock:
            return self.codes.get(pid)

    def _run(self):
        while True:
            with self.lock:
                waiting = self.watched - set(self.codes)
            for pid in waiting:
                try:
                    done, status = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    done, status = pid, None
                if done == pid:
                    with self.lock:
                        self.codes[pid] = None if status is None else os.waitstatus_to_exitcode(status)
            time.sleep(0.02)  # polling the watched pids; strata-cluster down polls every 0.1 s


def node_env(library):
    def env(test_dir):
        rules = os.path.join(test_dir, "fault-rules")
        open(rules, "w").close()  # empty: no faults until the test renames rules onto it
        return {"LD_PRELOAD": library, "STRATA_FAULT_RULES": rules,
                "STRATA_FAULT_LOG": os.path.join(test_dir, "faults.log")}
    return env


def fault_log(cluster):
    try:
        with open(os.path.join(cluster.dir, "faults.log"), errors="replace") as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


def faults(cluster):
    """[(pid, errno, call, path, offset, count)] of the injected faults, in order."""
    out = []
    for line in fault_log(cluster):
        m = FAULT_LINE.match(line)
        if m:
            out.append((int(m[1]), m[2], m[3], m[4], int(m[5]), int(m[6])))
    return out


def arm(cluster, rules, pid):
    """Renames rules onto the rules file (a rename is read whole) and waits until process
    pid has loaded them."""
    path = cluster.node_env["STRATA_FAULT_RULES"]
    write_fault_rules(path, rules.splitlines())
    count = len([line for line in rules.splitlines() if line.strip() and not line.startswith("#")])
    loaded = f"pid={pid} loaded {count} rules from {path}"
    cluster.wait_for(f"pid {pid} to load the {count} fault rules", lambda: loaded in fault_log(cluster), 10)


def high_watermark(cluster, node):
    """TOPIC-0's high watermark as node last checkpointed it (None: not yet)."""
    return cluster.checkpoint(node, "replication-offset-checkpoint").get((TOPIC, 0))


def consume_all(cluster, config, timeout=45):
    """Reads TOPIC-0 from offset 0 until the end of the log after offset RECORDS - 1:
    ([(offset, value bytes)], [errors as (code name, text, fatal, retriable)])."""
    errors = []

    def on_error(err):
        errors.append((err.name(), err.str(), err.fatal(), err.retriable()))

    consumer = Consumer({"group.id": "strata-zero-copy-test-unused", "enable.auto.commit": False,
                         "enable.partition.eof": True, "auto.offset.reset": "error", "check.crcs": True,
                         "log_level": 2, "error_cb": on_error, **config})
    got = []
    try:
        consumer.assign([TopicPartition(TOPIC, 0, 0)])
        deadline = time.monotonic() + timeout
        while True:
            if time.monotonic() > deadline:
                raise TestFailed(f"the consumer read {len(got)} of {RECORDS} records in {timeout} s "
                                 f"(last offset {got[-1][0] if got else None}); errors {errors[:5]}")
            for msg in consumer.consume(1000, timeout=0.2):
                err = msg.error()
                if err is None:
                    got.append((msg.offset(), msg.value()))
                elif err.code() == KafkaError._PARTITION_EOF:
                    if got and got[-1][0] >= RECORDS - 1:
                        return got, errors
                else:
                    errors.append((err.name(), err.str(), err.fatal(), err.retriable()))
                    if err.fatal():
                        raise TestFailed(f"the consumer failed at {len(got)} records: {err}")
    finally:
        consumer.close()


def check_consumed(cluster, got, errors, produced):
    """Offsets 0..RECORDS-1 once each in order, every value byte for byte; no error that is
    fatal, a CRC failure, an offset reset, or anything else not retriable."""
    offsets = [o for o, _ in got]
    if not cluster.check(offsets == list(range(RECORDS)), f"the consumer's offsets are not 0..{RECORDS - 1} once each, "
                                                         f"in order"):
        seen = set()
        dup = [o for o in offsets if o in seen or seen.add(o)]
        gaps = sorted(set(range(RECORDS)) - set(offsets))
        back = [(a, b) for a, b in zip(offsets, offsets[1:]) if b <= a]
        log(f"read {len(offsets)} records: missing {len(gaps)} (e.g. {gaps[:10]}), repeated {len(dup)} "
            f"(e.g. {dup[:10]}), backwards steps {back[:5]}")
    wrong = [(o, v) for o, v in got if o < RECORDS and v != produced[o]]
    if not cluster.check(not wrong, f"{len(wrong)} records differ from what was produced at their offset (stale or "
                                    f"foreign bytes)"):
        for o, v in wrong[:3]:
            first = next((i for i, (a, b) in enumerate(zip(v, produced[o])) if a != b), min(len(v), len(produced[o])))
            near = slice(max(0, first - 8), first + 24)
            log(f"offset {o}: {len(v)} bytes (produced {len(produced[o])}), first difference at byte {first}: "
                f"got {v[near]!r}, produced {produced[o][near]!r} there")
    benign = ("_TRANSPORT", "_ALL_BROKERS_DOWN")
    # The broker whose dir failed stops (exit 71): a TLS connection librdkafka is opening
    # to it then (a new one, e.g. to the group coordinator it looks up for any group.id)
    # ends mid-handshake, which it reports as _SSL, not _TRANSPORT: the same peer loss.
    peer_gone = lambda e: e[0] == "_SSL" and "unexpected eof" in e[1]  # noqa: E731
    bad = [e for e in errors if e[2] or e[0] in ("_BAD_MSG", "_AUTO_OFFSET_RESET", "OFFSET_OUT_OF_RANGE") or
           not (e[3] or e[0] in benign or peer_gone(e))]
    cluster.check(not bad, f"consumer errors that are not retriable: {bad[:5]}")
    if errors:
        log(f"consumer errors seen: {sorted(set((e[0], e[1][:100]) for e in errors))[:6]}")


def main():
    if len(sys.argv) != 5 or sys.argv[4] not in ("plaintext", "ssl"):
        sys.exit(f"usage: {sys.argv[0]} <bin dir> <strata-cluster> <libstrata_fault_preload.so> plaintext|ssl")
    bin_dir, cluster_script, library, variant = sys.argv[1:5]
    exits = NodeExits()
    with Cluster(bin_dir, cluster_script, f"zero-copy-dir-failure-{variant}", overrides, budget_s=75,
                 node_env=node_env(os.path.abspath(library)), ssl=variant == "ssl") as cluster:
        for node in cluster.nodes():
            exits.watch(cluster.pid(node))
        cluster.create_topic(TOPIC, 1, 3, {"min.insync.replicas": 2, "segment.bytes": 1 << 30})
        values = [value(i) for i in range(RECORDS)]
        reports = produce_values(cluster.bootstrap, TOPIC, 0, values,
                                 {"acks": "all", "enable.idempotence": True, "linger.ms": 20}, timeout=60)
        failed = [(i, e) for i, (_, _, e) in enumerate(reports) if e is not None]
        cluster.require(not failed, f"{len(failed)} records not acknowledged, e.g. {failed[:3]}")
        moved = [(i, o) for i, (_, o, _) in enumerate(reports) if o != i]
        cluster.require(not moved, f"records acknowledged at offsets other than their index: {moved[:5]}")
        log(f"{RECORDS} records acknowledged ({cluster.elapsed():.1f} s)")

        state = cluster.partition(TOPIC, 0)
        cluster.wait_for("every replica in the ISR", lambda: cluster.isr_full(TOPIC), 20,
                         lambda: cluster.cluster_state(TOPIC))
        replicas = cluster.partition(TOPIC, 0)["isr"]
        cluster.wait_for(f"every ISR member to checkpoint the high watermark {RECORDS}",
                         lambda: all(high_watermark(cluster, n) == RECORDS for n in replicas), 20,
                         lambda: {n: high_watermark(cluster, n) for n in replicas})
        leader = cluster.partition(TOPIC, 0)["leader"]
        cluster.require(leader == state["leader"], f"the leader moved from {state['leader']} to {leader} meanwhile")
        cluster.require(cluster.replicas_identical(TOPIC, 0, replicas),
                        f"replicas differ: {cluster.describe_difference(TOPIC, 0, replicas)}")
        segments = cluster.segments(leader, TOPIC, 0)
        cluster.require(len(segments) == 1, f"broker {leader} has {len(segments)} segments, not 1: {segments}")
        segment = os.path.realpath(segments[0])  # as /proc/self/fd names it (the rule, the fault log)
        size = os.path.getsize(segment)
        valid = [e for e in cluster.dump(leader, TOPIC, 0) if e["type"] == "summary"][0]["validBytes"]
        cluster.require(valid == size, f"{segment} is {size} bytes, of which {valid} hold batches")
        leader_pid = cluster.pid(leader)
        failing_from = size // 2
        log(f"leader {leader} (pid {leader_pid}): {segment}, {size} bytes; failing [{failing_from}, max)")

        arm(cluster, f"read     {segment} {failing_from} max EIO\nsendfile {segment} {failing_from} max EIO\n",
            leader_pid)
        cluster.require(not faults(cluster), f"faults before the consumer started: {faults(cluster)[:3]}")

        client = {"bootstrap.servers": cluster.bootstrap}
        if variant == "ssl":
            client = {"bootstrap.servers": cluster.ssl_bootstrap, "security.protocol": "ssl",
                      "ssl.ca.location": cluster.ssl_ca_location}
        started = time.monotonic()
        got, errors = consume_all(cluster, client)
        log(f"consumed {len(got)} records over {variant} in {time.monotonic() - started:.1f} s")
        produced = [v.encode() for v in values]
        check_consumed(cluster, got, errors, produced)

        injected = faults(cluster)
        mine = [f for f in injected if f[0] == leader_pid and f[3] == segment]
        for pid, errno_name, call, path, offset, count in injected[:6]:
            log(f"fault: pid {pid} {errno_name} {call} offset={offset} count={count}")
        cluster.require(mine, f"no fault fired in broker {leader} (pid {leader_pid}) on {segment}: "
                              f"{len(injected)} faults in all")
        cluster.check(len(mine) == len(injected), f"faults fired outside broker {leader}'s segment: "
                                                  f"{[f for f in injected if f not in mine][:3]}")
        calls = [f[2] for f in mine]
        if variant == "plaintext":
            cluster.check(calls[0].startswith("sendfile"),
                          f"the first fault in broker {leader} was a {calls[0]}, not the zero-copy sendfile: {calls}")
        cluster.check(any(c.startswith("pread") for c in calls),
                      f"broker {leader} never re-read the region its send failed on: {calls}")

        log_dir = os.path.join(cluster.dir, f"node-{leader}", "logs")
        offline = re.compile(rf"Log dir {re.escape(log_dir)} is offline: .*a zero-copy send of \d+ bytes of "
                             rf"{re.escape(segments[0])} at \d+ failed .*; re-reading it failed")
        cluster.wait_for(f"broker {leader} to log its dir offline after the failed re-read",
                         lambda: offline.search(cluster.server_log(leader)), 10,
                         lambda: [line for line in cluster.server_log(leader).splitlines() if "offline" in line][-3:])
        cluster.wait_for(f"the controller to show broker {leader}'s log dir offline",
                         lambda: cluster.broker_state(leader)["offline_log_dirs"] == 1, 20,
                         lambda: cluster.broker_state(leader))
        cluster.wait_for(f"the leadership of {TOPIC}-0 to move off broker {leader} to an in-sync replica",
                         lambda: (lambda p: p["leader"] not in (leader, -1) and leader not in p["isr"] and
                                  leader in p["offline_replicas"])(cluster.partition(TOPIC, 0)), 20,
                         lambda: cluster.cluster_state(TOPIC))
        log(f"{TOPIC}-0 is now led by broker {cluster.partition(TOPIC, 0)['leader']}")

        cluster.wait_for(f"broker {leader} to stop", lambda: cluster.exited(leader_pid), 20)
        stopping = (f"broker {leader}: every log dir has failed ({log_dir}); nothing it holds can be served: "
                    f"stopping\n")
        cluster.check(stopping in cluster.server_log(leader),
                      f"broker {leader}'s log has no line ending in {stopping!r}")
        if exits.enabled:
            cluster.wait_for(f"broker {leader}'s exit code", lambda: exits.code(leader_pid) is not None, 10)
            cluster.check(exits.code(leader_pid) == EXIT_EVERY_LOG_DIR_FAILED,
                          f"broker {leader} exited {exits.code(leader_pid)}, not {EXIT_EVERY_LOG_DIR_FAILED}")
            log(f"broker {leader} exited with code {exits.code(leader_pid)}")
        else:
            log("note: no PR_SET_CHILD_SUBREAPER here, the exit code is not checked")
        others = [n for n in cluster.nodes() if n != leader and not cluster.running(n)]
        cluster.check(not others, f"nodes other than broker {leader} stopped: {others}")
    return cluster.exit_code()


sys.exit(main())
