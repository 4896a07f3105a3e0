"""The log cleaner with real processes (issue 16): every replica compacts its own copy of a
compacted topic, keeps each key's latest acknowledged value, drops tombstones once
delete.retention.ms has passed, and a kill -9 in the middle of a cleaning leaves nothing
behind at the next start.

3 controllers + 3 brokers with log.cleaner.backoff.ms 200 and the cleaner throttled to
300 kB/s (a cleaning lasts long enough to be caught in progress). Topic `compacted`: 1
partition, RF 3, cleanup.policy=compact, 16 KiB segments (the cleaner never touches the
active segment), min.cleanable.dirty.ratio 0.01, delete.retention.ms 4 s. One idempotent
acks=all producer for the whole test; each record's key, value and offset come from its
delivery report.
  * 20 rounds over 200 keys, ~100-byte values; the last round writes tombstones (null
    values) for one key in ten, a middle round for another one in ten, which later rounds
    write again. A record without a key is refused (INVALID_RECORD).
  * Every replica cleans everything below its active segment (its cleaner checkpoint,
    `cleaner-offset-checkpoint`, reaches the active segment's base offset; its log says
    `log cleaner: cleaned compacted-0 ...`) and holds well under a quarter of the records
    produced: below the checkpoint exactly each key's latest acknowledged record (a
    tombstone may still be there), above it every acknowledged record.
  * The preferred leader is killed -9 as soon as a `.cleaned` or `.swap` file shows that
    it is rewriting segments (more rounds are produced while it is idle, the producer is
    idle at the kill); the leftovers are still in its partition dir. It restarts: its load
    line completes the swap it left (if any) and reports 0 producer-state rebuilds; it is
    back in the ISR, cleans again and, after a preferred leader election, leads.
  * The same producer goes on through it without OUT_OF_ORDER_SEQUENCE_NUMBER (or any
    error) until every broker has finished two more cleanings after the tombstones' time
    plus delete.retention.ms.
  * With nothing left to clean, on every replica: offsets strictly increasing, no record
    without a key, below the cleaner checkpoint at most one record per key and that the
    key's latest acknowledged one, no tombstone left, every record above the checkpoint
    there; no `.cleaned` or `.swap` file; `strata-storage verify` finds no problem; a
    consumer from offset 0 reads exactly the leader's records, each key's last
    acknowledged value.
STRATA_TEST_OVERRIDES="key=value ..." adds broker settings (log.cleaner.enable=false shows
the test failing without a cleaner).
Usage: /usr/bin/python3 compaction_test.py <bin dir> <strata-cluster>
"""

import os
import re
import signal
import subprocess
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

from replication_harness import Cluster, TestFailed, client_error_logger, log, produce_values

TOPIC = "compacted"
KEYS = 200
ROUNDS = 20  # of the first phase
SEGMENT_BYTES = 16384
DELETE_RETENTION_MS = 4000
PADDING = "x" * 80
TOMBSTONED = {f"k{i:03d}" for i in range(0, KEYS, 10)}  # null in the last round of the first phase
REWRITTEN = {f"k{i:03d}" for i in range(5, KEYS, 10)}  # null in a middle round, written again after
LIVE = [f"k{i:03d}" for i in range(KEYS) if f"k{i:03d}" not in TOMBSTONED]
CHECKPOINT_FILE = "cleaner-offset-checkpoint"
INVALID_RECORD = 87

CLEANED = re.compile(rf"log cleaner: cleaned {TOPIC}-0 offsets \[(\d+), (\d+)\) in (\d+) ms: (\d+) segments, "
                     rf"(\d+) bytes read, (\d+) written, (\d+) records removed \((\d+) tombstones")
LOADED = re.compile(rf"/{TOPIC}-0: loaded (\d+) segments, offsets \[(\d+), (\d+)\), recovered (\d+) segments "
                    rf"\((\d+) bytes\), rebuilt (\d+) indexes, (\d+) swaps, replayed (\d+) batches into producer "
                    rf"state \((\d+) rebuilds\)")
UNCLEANABLE = "cannot be cleaned and is skipped"

overrides = {
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 100,
    "log.cleaner.backoff.ms": 200,
    "log.cleaner.io.max.bytes.per.second": 300000,
    "log.cleaner.dedupe.buffer.size": 1 << 20,
    # A recent recovery point after kill -9, so that a producer snapshot lies below it.
    "log.flush.offset.checkpoint.interval.ms": 500,
}
overrides.update(kv.split("=", 1) for kv in os.environ.get("STRATA_TEST_OVERRIDES", "").split())

topic_configs = {
    "cleanup.policy": "compact",
    "segment.bytes": SEGMENT_BYTES,
    "min.cleanable.dirty.ratio": 0.01,
    "delete.retention.ms": DELETE_RETENTION_MS,
    "min.insync.replicas": 2,
}


class KeyedProducer:
    """The test's one idempotent acks=all producer (its sequence numbers carry across
    leaders): acked [(offset, key, value or None)] and failed [(key, error)] from the
    delivery reports, which run on the caller's thread (in flush)."""

    def __init__(self, bootstrap):
        self.acked = []
        self.failed = []
        self.errors = []
        self.producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                                  "linger.ms": 5, "batch.num.messages": 25, "message.timeout.ms": 60000,
                                  "log_level": 2, "error_cb": client_error_logger("producer", self.errors)})

    def _report(self, err, msg):
        key = msg.key().decode()
        if err is None:
            value = msg.value()
            self.acked.append((msg.offset(), key, None if value is None else value.decode()))
        else:
            self.failed.append((key, err))

    def send(self, records):
        """Sends [(key, value or None)] and waits for every delivery report."""
        for key, value in records:
            while True:
                try:
                    self.producer.produce(TOPIC, key=key.encode(), value=None if value is None else value.encode(),
                                          partition=0, on_delivery=self._report)
                    break
                except BufferError:
                    self.producer.poll(0.05)
        left = self.producer.flush(90)
        if left:
            raise TestFailed(f"{left} records without a delivery report after 90 s")
        if self.failed or self.errors:
            raise TestFailed(f"the idempotent producer failed: {[(k, str(e)) for k, e in self.failed[:5]]} "
                             f"({len(self.failed)} delivery failures), client errors {self.errors[:5]}")

    def latest(self):
        """key -> (offset, value or None) of its last acknowledged record."""
        latest = {}
        for offset, key, value in self.acked:
            if key not in latest or offset > latest[key][0]:
                latest[key] = (offset, value)
        return latest


def round_of(tag, keys, tombstones=()):
    return [(key, None if key in tombstones else f"{tag}-{key}-{PADDING}") for key in keys]


# ---- a replica's files --------------------------------------------------------------
def cleaner_checkpoint(cluster, node):
    """The partition's offset in node's cleaner-offset-checkpoint (None: not cleaned yet), read
    here: strata-storage dump does not know the file (Kafka's offset checkpoint format, written
    tmp -> rename)."""
    path = os.path.join(cluster.log_dir_paths(node)[0], CHECKPOINT_FILE)
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return None
    entries = [line.split() for line in lines[2:]]
    if lines[:1] != ["0"] or len(lines) < 2 or not lines[1].isdigit() or int(lines[1]) != len(entries) or \
            any(len(e) != 3 for e in entries):
        raise TestFailed(f"broker {node}'s {CHECKPOINT_FILE} is not an offset checkpoint: {lines[:5]}")
    return next((int(o) for t, p, o in entries if t == TOPIC and p == "0"), None)


def active_base(cluster, node):
    return int(os.path.basename(cluster.segments(node, TOPIC, 0)[-1]).split(".")[0])


def cleaned_to_active(cluster, node):
    """Everything below the active segment is cleaned: nothing more to clean until it rolls."""
    checkpoint = cleaner_checkpoint(cluster, node)
    return checkpoint is not None and checkpoint == active_base(cluster, node)


def cleaning_files(cluster, node):
    d = cluster.partition_dir(node, TOPIC, 0)
    return sorted(f for f in os.listdir(d) if f.endswith(".cleaned") or f.endswith(".swap"))


def cleanings(cluster, node):
    """[(first dirty, next dirty, records removed, tombstones removed)] of node's log lines."""
    return [(int(m[1]), int(m[2]), int(m[7]), int(m[8])) for m in CLEANED.finditer(cluster.server_log(node))]


def keyed_records(cluster, node):
    """[(offset, key or None, value or None)] of the replica's records."""
    return [(e["offset"], None if e["keySize"] < 0 else e["key"], None if e["valueSize"] < 0 else e["value"])
            for e in cluster.dump(node, TOPIC, 0, records=True) if e["type"] == "record"]


def snapshot_below_recovery_point(cluster, node):
    """A restart after kill -9 finds a producer snapshot at or below the recovery point."""
    recovery_point = cluster.checkpoint(node, "recovery-point-offset-checkpoint").get((TOPIC, 0), 0)
    return recovery_point > 0 and any(f.endswith(".snapshot") and int(f.split(".")[0]) <= recovery_point
                                      for f in os.listdir(cluster.partition_dir(node, TOPIC, 0)))


def describe(cluster, nodes):
    parts = []
    for n in nodes:
        done = cleanings(cluster, n)
        parts.append(f"broker {n}: cleaner checkpoint {cleaner_checkpoint(cluster, n)}, active segment at "
                     f"{active_base(cluster, n)}, {len(done)} cleanings" +
                     (f" (last {done[-1][:2]}, {done[-1][2]} records removed)" if done else ""))
    return "; ".join(parts)


def check_replica(cluster, what, records, checkpoint, acked, tombstones_gone):
    """records [(offset, key, value)] of a log cleaned up to checkpoint, against acked
    [(offset, key, value)]: offsets strictly increasing, a key on each record, every key's
    last acknowledged value; below the checkpoint each key once, as its latest record
    there (a tombstone only while tombstones_gone is false); above it every record."""
    offsets = [o for o, _, _ in records]
    cluster.check(all(a < b for a, b in zip(offsets, offsets[1:])),
                  f"{what}: offsets not strictly increasing, e.g. "
                  f"{[(a, b) for a, b in zip(offsets, offsets[1:]) if a >= b][:5]}")
    keyless = [o for o, k, _ in records if k is None]
    cluster.check(not keyless, f"{what}: {len(keyless)} records without a key, e.g. at {keyless[:5]}")
    sent = {o: (k, v) for o, k, v in acked}
    held = {o: (k, v) for o, k, v in records}
    strange = [(o, kv) for o, kv in sorted(held.items()) if sent.get(o) != kv]
    cluster.check(not strange, f"{what}: {len(strange)} records not acknowledged as such, e.g. {strange[:3]}")

    latest, latest_below = {}, {}
    for o, k, v in sorted(acked):
        latest[k] = (o, v)
        if o < checkpoint:
            latest_below[k] = (o, v)
    wrong = [(k, o, held.get(o)) for k, (o, v) in sorted(latest.items()) if v is not None and held.get(o) != (k, v)]
    cluster.check(not wrong, f"{what}: {len(wrong)} keys without their last acknowledged value, e.g. {wrong[:3]} "
                             f"(key, acknowledged offset, held there)")

    below = {}
    for o, k, _ in records:
        if o < checkpoint:
            below.setdefault(k, []).append(o)
    duplicated = {k: v for k, v in below.items() if len(v) > 1}
    cluster.check(not duplicated, f"{what}: {len(duplicated)} keys more than once below the cleaner checkpoint "
                                  f"{checkpoint}, e.g. {sorted(duplicated.items())[:3]} (key, offsets)")
    stale = [(k, o) for k, v in below.items() for o in v if o != latest_below.get(k, (None,))[0]]
    cluster.check(not stale, f"{what}: {len(stale)} superseded records below the cleaner checkpoint {checkpoint}, "
                             f"e.g. {sorted(stale)[:5]} (key, offset)")
    lost = [(k, o) for k, (o, v) in sorted(latest_below.items()) if v is not None and o not in held]
    cluster.check(not lost, f"{what}: {len(lost)} keys lost their latest record below the cleaner checkpoint "
                            f"{checkpoint}, e.g. {lost[:5]} (key, offset)")
    if tombstones_gone:
        left = [(k, o) for k, v in below.items() for o in v if held[o][1] is None]
        cluster.check(not left, f"{what}: {len(left)} tombstones older than delete.retention.ms "
                                f"({DELETE_RETENTION_MS} ms) still below the cleaner checkpoint {checkpoint} after "
                                f"two cleanings, e.g. {left[:5]} (key, offset)")
    missing = [(o, k) for o, k, v in acked if o >= checkpoint and held.get(o) != (k, v)]
    cluster.check(not missing, f"{what}: {len(missing)} acknowledged records above the cleaner checkpoint "
                               f"{checkpoint} missing or different, e.g. {missing[:5]} (offset, key)")


def check_replicas(cluster, producer, replicas, tombstones_gone):
    """With nothing left to clean: each replica against what was acknowledged. Returns
    {node: records}."""
    out = {}
    for n in replicas:
        checkpoint = cleaner_checkpoint(cluster, n)
        records = keyed_records(cluster, n)
        cluster.require(cleaner_checkpoint(cluster, n) == checkpoint,
                        f"broker {n} cleaned while its replica was read: the test's view is not settled")
        check_replica(cluster, f"{TOPIC}-0 on broker {n}", records, checkpoint, producer.acked, tombstones_gone)
        out[n] = records
        log(f"broker {n}: {len(records)} records ({len(producer.acked)} acknowledged), cleaner checkpoint "
            f"{checkpoint}, {len(cluster.segments(n, TOPIC, 0))} segments")
    return out


def consume_all(cluster, timeout=60):
    """[(offset, key, value)] of the partition from offset 0 to its end, through a consumer."""
    errors = []
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "strata-compaction-test-unused",
                         "enable.auto.commit": False, "enable.partition.eof": True,
                         "error_cb": client_error_logger("consumer", errors)})
    got = []
    try:
        consumer.assign([TopicPartition(TOPIC, 0, 0)])
        deadline = time.monotonic() + timeout
        at_end = False
        while not at_end:
            if time.monotonic() > deadline:
                raise TestFailed(f"the consumer did not reach the end of {TOPIC}-0 in {timeout} s ({len(got)} records)")
            for m in consumer.consume(1000, timeout=0.2):
                if m.error() is None:
                    got.append((m.offset(), None if m.key() is None else m.key().decode(),
                                None if m.value() is None else m.value().decode()))
                elif m.error().code() == KafkaError._PARTITION_EOF:
                    at_end = True
                else:
                    errors.append(str(m.error()))
    finally:
        consumer.close()
    return got, errors


# ---- the kill -9 in a cleaning --------------------------------------------------------
def kill_while_cleaning(cluster, producer, victim, next_round):
    """Kills -9 victim as soon as a .cleaned or .swap file is in its partition dir; while its
    cleaner is idle, another round is produced (then the producer waits for its reports, so
    it is idle at the kill). Returns (the files seen, those left after the kill)."""
    epoch = cluster.broker_epochs()[victim]
    pid = cluster.pid(victim)
    rounds = []

    def caught():
        files = cleaning_files(cluster, victim)
        if files:
            os.kill(pid, signal.SIGKILL)  # now: a strata-cluster call would take a while
            return files
        if cleaned_to_active(cluster, victim):
            cluster.require(len(rounds) < 30, f"30 rounds produced and broker {victim} never seen rewriting segments")
            rounds.append(next_round())
        return None

    seen = cluster.wait_for(f"broker {victim} to rewrite segments (a .cleaned or .swap file)", caught, 60,
                            lambda: f"{len(rounds)} rounds; {describe(cluster, [victim])}")
    cluster.stopped_epochs[victim] = epoch  # settled() waits for a new registration
    cluster.wait_for(f"broker {victim} (pid {pid}) to die", lambda: cluster.exited(pid), 10)
    cluster.cluster("kill", str(victim))  # forgets the pid
    left = cleaning_files(cluster, victim)
    log(f"kill -9 broker {victim} after {len(rounds)} more rounds, seeing {seen}; left in its partition dir: {left}")
    return seen, left


with Cluster(sys.argv[1], sys.argv[2], "compaction", overrides, budget_s=200) as cluster:
    cluster.create_topic(TOPIC, 1, 3, topic_configs)
    first = cluster.partition(TOPIC, 0)
    replicas = first["replicas"]
    victim = replicas[0]  # the preferred leader
    producer = KeyedProducer(cluster.bootstrap)

    # 1. Many values per key, tombstones among them.
    started = time.monotonic()
    for r in range(ROUNDS):
        producer.send(round_of(f"a{r}", [f"k{i:03d}" for i in range(KEYS)],
                               TOMBSTONED if r == ROUNDS - 1 else REWRITTEN if r == ROUNDS // 2 else ()))
    tombstones_at = time.time()  # their timestamps are at most this
    produced = len(producer.acked)
    log(f"{produced} records acknowledged in {time.monotonic() - started:.1f} s, offsets up to "
        f"{max(o for o, _, _ in producer.acked)}")
    keyless = produce_values(cluster.bootstrap, TOPIC, 0, ["no key"], {"acks": "all"})
    cluster.check(keyless[0][2] is not None and keyless[0][2].code() == INVALID_RECORD,
                  f"a record without a key was answered {keyless[0][2]!r}, not INVALID_RECORD")

    # 2. Every replica cleans all but its active segment.
    cluster.wait_for("every replica cleaned up to its active segment",
                     lambda: all(cleaned_to_active(cluster, n) for n in replicas), 60,
                     lambda: describe(cluster, replicas))
    counts = {n: len(keyed_records(cluster, n)) for n in replicas}
    cluster.check(all(c < produced / 4 for c in counts.values()),
                  f"replicas hold {counts} records of {produced} produced over {KEYS} keys: not compacted")
    for n in replicas:
        done = cleanings(cluster, n)
        cluster.check(done, f"broker {n} logged no cleaning of {TOPIC}-0")
        log(f"broker {n}: {len(done)} cleanings, the last {done[-1] if done else None} (first dirty, next dirty, "
            f"records removed, tombstones removed)")
    check_replicas(cluster, producer, replicas, tombstones_gone=False)

    # 3. kill -9 of the preferred leader while it rewrites segments; it restarts.
    cluster.wait_for(f"broker {victim}'s recovery point past a producer snapshot",
                     lambda: snapshot_below_recovery_point(cluster, victim), 30)
    phase2 = iter(range(1000))  # round numbers
    for attempt in range(1, 4):
        seen, left = kill_while_cleaning(cluster, producer, victim,
                                         lambda: producer.send(round_of(f"b{next(phase2)}", LIVE)))
        log_before = len(cluster.server_log(victim))
        cluster.start(victim)
        if left:
            break
        # The rewrite finished between the look and the kill: nothing was interrupted.
        log(f"attempt {attempt}: broker {victim}'s cleaning ended before the kill; again")
        cluster.wait_for(f"broker {victim} back in the ISR", lambda: cluster.settled(TOPIC), 60,
                         lambda: cluster.cluster_state(TOPIC))
    acked_before_restart = len(producer.acked)
    cluster.require(left, f"three kills of broker {victim} while it rewrote segments left no .cleaned or .swap file")
    cluster.wait_for(f"broker {victim} registered anew and back in the ISR", lambda: cluster.settled(TOPIC), 60,
                     lambda: cluster.cluster_state(TOPIC))
    load = cluster.wait_for(f"broker {victim}'s load line for {TOPIC}-0",
                            lambda: LOADED.search(cluster.server_log(victim)[log_before:]), 30)
    log(f"broker {victim} restarted: {load.group(0)}")
    swaps_left = sum(1 for f in left if f.endswith(".log.swap"))
    cluster.check(int(load[7]) == swaps_left,
                  f"broker {victim} was killed with {left} in its partition dir and its load completed "
                  f"{load[7]} swaps, not {swaps_left}")
    cluster.check(int(load[9]) == 0, f"broker {victim}'s load rebuilt its producer state from the log start: "
                                     f"{load.group(0)}")
    cluster.wait_for(f"broker {victim} to clean again after its restart",
                     lambda: CLEANED.search(cluster.server_log(victim)[log_before:]) and
                     cleaned_to_active(cluster, victim), 60, lambda: describe(cluster, [victim]))
    subprocess.run([os.path.join(cluster.bin_dir, "strata"), "leaders", "elect", "--topic", TOPIC], env=cluster.env,
                   check=True, stdout=subprocess.DEVNULL, timeout=30)
    cluster.wait_for(f"broker {victim} to lead after a preferred leader election",
                     lambda: cluster.partition(TOPIC, 0)["leader"] == victim, 30, lambda: cluster.cluster_state(TOPIC))

    # 4. The producer goes on through the restarted leader until every broker finished two
    # cleanings after the tombstones expired (the second began after that).
    expire_at = tombstones_at + DELETE_RETENTION_MS / 1000 + 0.5
    cluster.wait_for("the tombstones to be older than delete.retention.ms", lambda: time.time() > expire_at,
                     DELETE_RETENTION_MS / 1000 + 5)
    expired = {n: len(cleanings(cluster, n)) for n in replicas}
    phase3 = []

    def two_cleanings_since():
        if all(len(cleanings(cluster, n)) >= expired[n] + 2 for n in replicas):
            return True
        if all(cleaned_to_active(cluster, n) for n in replicas):  # idle: give them more to clean
            cluster.require(len(phase3) < 20, "20 rounds produced and still not two cleanings on every broker")
            producer.send(round_of(f"c{len(phase3)}", LIVE))
            phase3.append(len(producer.acked))
        return False

    cluster.wait_for("every broker to clean twice more after the tombstones expired", two_cleanings_since, 60,
                     lambda: describe(cluster, replicas))
    log(f"{len(producer.acked)} records acknowledged, the last {len(producer.acked) - acked_before_restart} after "
        f"the restart, without an error")

    # 5. Nothing left to clean: the replicas, their files, a consumer.
    cluster.wait_for("every replica cleaned up to its active segment at the same log end",
                     lambda: all(cleaned_to_active(cluster, n) for n in replicas) and
                     len({cluster.log_end(n, TOPIC, 0) for n in replicas}) == 1 and cluster.isr_full(TOPIC), 60,
                     lambda: describe(cluster, replicas))
    held = check_replicas(cluster, producer, replicas, tombstones_gone=True)
    for n in replicas:
        cluster.check(not cleaning_files(cluster, n), f"broker {n} holds {cleaning_files(cluster, n)}")
        cluster.check(not re.search(UNCLEANABLE, cluster.server_log(n)), f"broker {n} found {TOPIC}-0 uncleanable")
        verify = subprocess.run([os.path.join(cluster.bin_dir, "strata-storage"), "verify",
                                 cluster.partition_dir(n, TOPIC, 0)], capture_output=True, text=True, timeout=60)
        cluster.check(verify.returncode == 0, f"strata-storage verify of broker {n}'s {TOPIC}-0 exited "
                                              f"{verify.returncode}: {(verify.stdout + verify.stderr)[-500:]}")
    leader = cluster.partition(TOPIC, 0)["leader"]
    consumed, errors = consume_all(cluster)
    cluster.check(not errors, f"consumer errors: {errors[:5]}")
    cluster.check(consumed == held[leader],
                  f"the consumer read {len(consumed)} records, the leader {leader} holds {len(held[leader])}; the "
                  f"first difference: {next(((a, b) for a, b in zip(consumed, held[leader]) if a != b), None)}")
    last = {}
    for _, key, value in consumed:
        last[key] = value
    expected = {k: v for k, (_, v) in producer.latest().items() if v is not None}
    cluster.check(last == expected, f"the consumer's last value per key differs from the last acknowledged for "
                                    f"{len(set(last.items()) ^ set(expected.items()))} keys, e.g. "
                                    f"{sorted(set(last.items()) ^ set(expected.items()))[:3]}")

sys.exit(cluster.exit_code())
