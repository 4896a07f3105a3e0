"""kcat and confluent-kafka keep producing and consuming through leader changes: a
controlled shutdown (SIGTERM) and a kill -9 (issue 6, test 5).

3 controllers + 3 brokers (real processes); topic `moves`: 3 partitions, RF 3,
min.insync.replicas 2. Running throughout:
  * kcat -P (idempotent, acks=all) fed numbered lines at a steady rate, its partitioner
    spreading them;
  * an idempotent confluent-kafka Producer (acks=all) sending numbered values, each to
    partition n % 3;
  * a confluent-kafka Consumer (assign() from the beginning, auto.offset.reset=error so an
    out-of-range answer from a new leader is an error, not a silent jump) and a kcat -C
    consumer, both tailing all partitions.
Meanwhile the leader of partition 0 is stopped with SIGTERM (its controlled shutdown
moves its leaderships before it exits, and the clients follow the metadata), restarted,
and then the leader of partition 1 is killed with kill -9 and restarted. Both producers
must make progress while each broker is away. At the end:
  * kcat -P exits 0 (no delivery failed) and confluent-kafka got no failed delivery report;
  * both consumers read exactly what the partitions hold at the end (offsets 0, 1, 2 ...
    without gaps or repeats, nothing served that was lost), which is every record of both
    producers once, each producer's values in production order per partition, and the
    confluent producer's values at their acknowledged offsets.
  * librdkafka 2.0 may stop the idempotent producer on "sequence desynchronization" (its
    PR 4438, fixed in 2.3); accepted only when the broker's OUT_OF_ORDER_SEQUENCE_NUMBER
    was right by its log (replication_harness.out_of_order_was_right). Both phases (the
    SIGTERM and the kill -9) still run to their end, kcat making progress in each.
Usage: /usr/bin/python3 replication_clients_test.py <bin dir> <strata-cluster>
"""

import os
import signal
import subprocess
import sys
import threading
import time

from replication_harness import (FAILED_WITH_THE_PRODUCER, Cluster, NumberedProducer, TailingConsumer, TestFailed,
                                 check_sequence, log, out_of_order_was_right, read_all)

TOPIC = "moves"
PARTITIONS = 3
RATE = 400  # records per second per producer

overrides = {
    "broker.session.timeout.ms": 2000,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 100,
}


class KcatProducer:
    """kcat -P fed b"kcat-<n>\\n" lines at RATE per second from a thread."""

    def __init__(self, bootstrap):
        self.process = subprocess.Popen(
            ["kcat", "-P", "-b", bootstrap, "-t", TOPIC, "-X", "acks=all", "-X", "enable.idempotence=true",
             "-X", "linger.ms=5", "-X", "message.timeout.ms=60000", "-X", "log_level=2"],
            stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        self.sent = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        started = time.monotonic()
        while not self.stopping.is_set():
            due = int((time.monotonic() - started) * RATE) + 1
            lines = b"".join(b"kcat-%d\n" % n for n in range(self.sent, due))
            try:
                self.process.stdin.write(lines)
                self.process.stdin.flush()
            except BrokenPipeError:
                return  # kcat exited; stop() reports its exit code
            self.sent = due
            time.sleep(0.01)  # pacing the producer, not synchronisation

    def stop(self):
        """Closes kcat's input; returns (exit code, stderr) once it delivered everything."""
        self.stopping.set()
        self.thread.join()
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.process.wait(timeout=90)
        except subprocess.TimeoutExpired:
            self.process.kill()
        return self.process.wait(), self.process.stderr.read().decode(errors="replace")


def kcat_consumed(path):
    """What kcat -C wrote ('partition offset value' lines): {p: [(offset, value)]}."""
    got = {p: [] for p in range(PARTITIONS)}
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                got[int(parts[0])].append((int(parts[1]), parts[2]))
    return got


with Cluster(sys.argv[1], sys.argv[2], "replication-clients", overrides, budget_s=130) as cluster:
    cluster.create_topic(TOPIC, PARTITIONS, 3, {"min.insync.replicas": 2})
    kcat_out = os.path.join(cluster.dir, "kcat-consumer.out")
    with open(kcat_out, "w") as out, open(kcat_out + ".err", "w") as err:
        kcat_consumer = subprocess.Popen(["kcat", "-C", "-b", cluster.bootstrap, "-t", TOPIC, "-o", "beginning", "-u",
                                          "-f", "%p %o %s\n", "-X", "log_level=2"],
                                         stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    tailing = TailingConsumer(cluster.bootstrap, TOPIC, PARTITIONS)
    ck = NumberedProducer(cluster.bootstrap, TOPIC, PARTITIONS, "ck", {"enable.idempotence": True}, rate=RATE).start()
    kcat = KcatProducer(cluster.bootstrap)
    phases_done = []  # each phase runs to its end, whatever the confluent producer does
    try:
        def progress(what, records=200):
            """Both producers get records through: the confluent acks, kcat's seen by the consumer.
            A confluent producer that librdkafka stopped on a fatal error (judged below)
            acknowledges nothing more: then kcat alone must get its records through."""
            acked, seen = ck.acked_count(), tailing.count()
            cluster.wait_for(f"both producers to make progress {what}",
                             lambda: (ck.fatal is not None and tailing.count() >= seen + records) or
                                     (ck.acked_count() >= acked + records and tailing.count() >= seen + 2 * records),
                             30)

        progress("at the start")
        # A controlled shutdown: SIGTERM; leaderships move before the process exits.
        victim = cluster.partition(TOPIC, 0)["leader"]
        cluster.note_stop(victim)
        cluster.signal(victim, signal.SIGTERM)
        cluster.wait_for(f"broker {victim} to exit after SIGTERM", lambda: not cluster.running(victim), 30)
        cluster.check("controlled shutdown done" in cluster.server_log(victim),
                      f"broker {victim} exited without finishing its controlled shutdown")
        cluster.check(all(p["leader"] != victim for p in cluster.partitions(TOPIC)),
                      f"broker {victim} still leads after its controlled shutdown: {cluster.partitions(TOPIC)}")
        progress(f"with broker {victim} shut down")
        cluster.start(victim)
        cluster.wait_for(f"broker {victim} back in every ISR", lambda: cluster.settled(TOPIC), 30)
        progress(f"with broker {victim} back")
        phases_done.append("SIGTERM")

        victim = cluster.partition(TOPIC, 1)["leader"]
        cluster.kill9(victim)
        cluster.wait_for(f"broker {victim}'s leaderships to move",
                         lambda: all(p["leader"] not in (victim, -1) for p in cluster.partitions(TOPIC)), 30)
        progress(f"with broker {victim} killed")
        cluster.start(victim)
        cluster.wait_for(f"broker {victim} back in every ISR", lambda: cluster.settled(TOPIC), 30)
        progress(f"with broker {victim} back")
        phases_done.append("kill -9")
    except TestFailed as e:
        cluster.check(False, str(e))
        for b in cluster.brokers:
            if not cluster.running(b):
                cluster.start(b)
    finally:
        kcat_rc, kcat_err = kcat.stop()
        left = ck.stop()

    cluster.check(phases_done == ["SIGTERM", "kill -9"],
                  f"only the phases {phases_done} of SIGTERM and kill -9 ran to their end")
    cluster.check(kcat_rc == 0, f"kcat -P exited {kcat_rc}: {kcat_err[-500:]}")
    cluster.check(not ck.client_errors, f"producer errors: {ck.client_errors[:5]}")
    log(f"kcat sent {kcat.sent}, confluent-kafka {ck.sent} ({len(ck.acked)} acknowledged)")
    cluster.wait_for("every ISR full", lambda: cluster.settled(TOPIC), 30)
    if ck.fatal is None:
        cluster.check(left == 0 and not ck.failed, f"confluent-kafka: {left} undelivered, {len(ck.failed)} failed, "
                                                   f"e.g. {sorted(ck.failed.items())[:3]}")
    else:
        # librdkafka 2.0's sequence desynchronization (see out_of_order_was_right): the
        # broker's answer must have been right; the producer's last records may be missing.
        if cluster.check(*out_of_order_was_right(cluster, TOPIC, ck.fatal)):
            log("note: the confluent producer stopped on librdkafka's sequence desynchronization")
        unexplained = {n: e for n, e in ck.failed.items()
                       if e.code() not in FAILED_WITH_THE_PRODUCER}
        cluster.check(not unexplained, f"confluent-kafka: {len(unexplained)} failed, e.g. {sorted(unexplained.items())[:3]}")

    # Both tailing consumers got exactly the partitions' final contents: every offset once,
    # nothing served that is not in the log now.
    final, errors = read_all(cluster.bootstrap, TOPIC, PARTITIONS)
    cluster.check(not errors, f"consumer errors reading the final logs: {errors[:5]}")
    sizes = {p: len(final[p]) for p in range(PARTITIONS)}
    cluster.wait_for(f"the confluent consumer to read {sum(sizes.values())} records",
                     lambda: all(len(tailing.got[p]) >= sizes[p] for p in range(PARTITIONS)), 30)
    cluster.wait_for(f"kcat -C to read {sum(sizes.values())} records",
                     lambda: all(len(kcat_consumed(kcat_out)[p]) >= sizes[p] for p in range(PARTITIONS)), 30)
    tailing.stop()
    kcat_consumer.terminate()
    kcat_consumer.wait(timeout=30)
    cluster.check(not tailing.errors, f"consumer errors: {tailing.errors[:5]}")
    for who, got in (("the confluent consumer", tailing.got), ("kcat -C", kcat_consumed(kcat_out))):
        for p in range(PARTITIONS):
            differ = [(a, b) for a, b in zip(got[p], final[p]) if a != b]
            cluster.check(got[p] == final[p], f"{who}: {TOPIC}-{p}: read {len(got[p])} records, the log holds "
                                              f"{len(final[p])}; first differences (read, log) {differ[:3]}")

    def kcat_number(value):
        return int(value[5:]) if value.startswith("kcat-") and value[5:].isdigit() else None

    kcat_values = set()
    for p in range(PARTITIONS):
        records = final[p]
        offsets = [o for o, _ in records]
        cluster.check(offsets == list(range(len(offsets))), f"{TOPIC}-{p}: offsets are not 0..{len(offsets) - 1}")
        check_sequence(cluster, f"{TOPIC}-{p} confluent values", [r for r in records if r[1].startswith("ck-")],
                       ck.number_in(p), ck.acked_in(p))
        mine = check_sequence(cluster, f"{TOPIC}-{p} kcat values", [r for r in records if r[1].startswith("kcat-")],
                              kcat_number)
        cluster.check(not kcat_values & set(mine), f"kcat values in two partitions: {sorted(kcat_values & set(mine))[:5]}")
        kcat_values |= set(mine)
        foreign = [r for r in records if not r[1].startswith(("ck-", "kcat-"))]
        cluster.check(not foreign, f"{TOPIC}-{p} holds records nobody produced: {foreign[:3]}")
    cluster.check(kcat_values == set(range(kcat.sent)),
                  f"kcat values missing: {sorted(set(range(kcat.sent)) - kcat_values)[:10]}")

sys.exit(cluster.exit_code())
