"""Controllers replaced under load, through kill -9 of the leader mid-change (KIP-853,
issue 38).

A dynamic quorum of 3 controllers (1, 2, 3; strata-cluster up --dynamic) and 3 brokers
(4, 5, 6; real processes). An idempotent confluent-kafka producer (acks=all) sends
numbered values to `load` (3 partitions, RF 3, min.insync.replicas 2) and a consumer tails
it; a confluent-kafka AdminClient creates a topic `meta-<n>` after another through the
brokers (CreateTopics, forwarded to the active controller), each a committed record of
the metadata log once acknowledged. Meanwhile, with the strata CLI:
  1. controller 7 is added (strata-cluster add-controller, `strata quorum add-voter`);
  2. controller 8 is added while paused (SIGSTOP), so that its AddRaftVoter stays in
     progress (the leader lists it as a learner that has fetched nothing); then the leader
     is killed with -9. The change does not happen while 8 is paused (about 10 s, the new
     leader waiting for it too); the killed leader restarts, 8 continues, and the same
     add-voter command (it keeps trying until its timeout) completes through the new
     leader: the voters are 1, 2, 3, 7, 8;
  3. an old follower's removal is appended but cannot commit (two other voters paused:
     the new configuration has no majority) when the leader is killed with -9; the paused
     voters continue, and the same remove-voter command completes through the next leader
     (or finds it done there: the strata CLI counts VOTER_NOT_FOUND after an unanswered
     attempt as done when the leader's voters show it);
  4. the other old controllers are removed one at a time, the leader first while it is
     one of them, each stopped once its removal is done, until 7 and 8 and one old
     controller are left; topics are still created through them.
Afterwards: every topic whose creation was acknowledged exists, on the final quorum and
in the brokers' metadata; the final voters' metadata logs hold the same batches (leader
epoch and CRC, strata-storage dump) below the high watermark, each up to it; the brokers
are unfenced; and check_after_chaos: every acknowledged value exactly once at its
acknowledged offset on every replica and through a consumer, nothing served that was then
lost, no acknowledgement stall of STALL_S.
Usage: /usr/bin/python3 controller_replacement_test.py <bin dir> <strata-cluster>
"""

import glob
import os
import re
import signal
import subprocess
import sys
import threading

from confluent_kafka.admin import AdminClient, NewTopic

from replication_harness import Cluster, NumberedProducer, TailingConsumer, check_after_chaos, log

TOPIC = "load"
PARTITIONS = 3
STALL_S = 15
NEW = (7, 8)

overrides = {
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 100,
}


class TopicCreator:
    """Creates meta-0, meta-1, ... one after another from a thread (1 partition, RF 2)
    through the brokers; acked: the numbers whose CreateTopics succeeded. A failure (no
    controller during an election) is counted and the next number tried: only what was
    acknowledged must exist at the end."""

    def __init__(self, bootstrap):
        self.admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 2})
        self.acked = []
        self.failed = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        n = 0
        while not self.stopping.is_set():
            name = f"meta-{n}"
            future = self.admin.create_topics([NewTopic(name, 1, 2)], request_timeout=15)[name]
            try:
                future.result(timeout=30)
                self.acked.append(n)
            except Exception:  # noqa: BLE001 - any refusal or timeout: not acknowledged
                self.failed += 1
            n += 1
            self.stopping.wait(0.1)  # pacing (about 8 topics a second), not a synchronisation

    def stop(self):
        self.stopping.set()
        self.thread.join()


def quorum(cluster):
    return cluster.strata("quorum", "describe")


def learner_waiting(cluster, node):
    """The leader lists node as a learner (an observer) that has fetched nothing."""
    return any(o["id"] == node and o["log_end_offset"] < 0 for o in quorum(cluster).get("observers", []))


def directory_of(cluster, node):
    return next(v["directory_id"] for v in quorum(cluster)["voter_states"] if v["id"] == node)


def voters_current(cluster, voters):
    """The voters are these, each holding the log up to the high watermark."""
    q = quorum(cluster)
    return (sorted(q["voters"]) == sorted(voters) and
            all(v["log_end_offset"] >= q["high_watermark"] for v in q["voter_states"]))


def metadata_batches(cluster, node):
    """{offset: (leader epoch, crc)} of every batch in the node's metadata log files
    (strata-storage dump)."""
    batches = {}
    pattern = re.compile(r"^baseOffset: (\d+) .*partitionLeaderEpoch: (-?\d+) .* crc: (\d+)", re.M)
    for path in sorted(glob.glob(os.path.join(cluster.dir, f"node-{node}", "metadata", "__cluster_metadata-0", "*.log"))):
        out = subprocess.run([os.path.join(cluster.bin_dir, "strata-storage"), "dump", path], capture_output=True,
                             text=True, timeout=60).stdout
        for m in pattern.finditer(out):
            batches[int(m[1])] = (int(m[2]), int(m[3]))
    return batches


def check_same_committed_logs(cluster, voters):
    """Every voter holds the batches below the high watermark that another one holds,
    the same (leader epoch and CRC), up to the last one committed."""
    hw = quorum(cluster)["high_watermark"]
    logs = {v: {o: b for o, b in metadata_batches(cluster, v).items() if o < hw} for v in voters}
    for v, batches in logs.items():
        cluster.check(hw - 1 in batches, f"voter {v}'s metadata log lacks offset {hw - 1} (high watermark {hw})")
    first, *others = voters
    for v in others:
        common = logs[first].keys() & logs[v].keys()
        differ = sorted(o for o in common if logs[first][o] != logs[v][o])
        cluster.check(not differ, f"voters {first} and {v} hold different batches at offsets {differ[:10]}")
    log(f"the metadata logs of voters {voters} agree below the high watermark {hw} "
        f"({', '.join(f'{v}: {len(b)} batches' for v, b in logs.items())})")


with Cluster(sys.argv[1], sys.argv[2], "controller-replacement", overrides, budget_s=220, dynamic=True) as cluster:
    cluster.create_topic(TOPIC, PARTITIONS, 3, {"min.insync.replicas": 2})
    cluster.wait_for(f"{TOPIC} with full ISRs", lambda: cluster.isr_full(TOPIC), 30)
    producer = NumberedProducer(cluster.bootstrap, TOPIC, PARTITIONS, "load",
                                {"enable.idempotence": True, "request.timeout.ms": 30000}, rate=1500).start()
    tailing = TailingConsumer(cluster.bootstrap, TOPIC, PARTITIONS)
    creator = TopicCreator(cluster.bootstrap)
    producer.goes_on(cluster, "the first 1000 acknowledgements", 1000, 30)

    # 1. A fourth voter.
    cluster.add_controller(7)
    cluster.strata("quorum", "add-voter", "--config", os.path.join(cluster.dir, "node-7", "server.properties"),
                   "--timeout", "25")
    cluster.require(sorted(quorum(cluster)["voters"]) == [1, 2, 3, 7], f"voters after adding 7: {quorum(cluster)}")
    producer.goes_on(cluster, "acknowledgements after adding 7", 1000, 30)

    # 2. A fifth, paused so that its change is in progress when the leader is killed.
    cluster.add_controller(8)
    cluster.signal(8, signal.SIGSTOP)
    adding = subprocess.Popen([os.path.join(cluster.bin_dir, "strata"), "quorum", "add-voter", "--config",
                               os.path.join(cluster.dir, "node-8", "server.properties"), "--timeout", "120"],
                              env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    cluster.wait_for("controller 8 listed as a learner that fetched nothing", lambda: learner_waiting(cluster, 8), 30,
                     lambda: quorum(cluster))
    leader = quorum(cluster)["leader_id"]
    cluster.cluster("kill", str(leader))
    log(f"kill -9 the leader {leader} with AddRaftVoter of 8 in progress")
    cluster.wait_for("another leader", lambda: quorum(cluster)["leader_id"] not in (leader, -1), 30,
                     lambda: quorum(cluster))
    producer.goes_on(cluster, "acknowledgements with the leader killed", 500, 30)
    cluster.cluster("start", str(leader))
    cluster.wait_for(f"the restarted {leader} caught up", lambda: voters_current(cluster, [1, 2, 3, 7]), 30,
                     lambda: quorum(cluster))
    # The CLI tried again through the new leader, whose change waits for 8 too; 8 stays
    # paused for longer than one call of the CLI to one controller may take (a fifth of
    # its 30 s when 5 are listed), as a catch-up from a long metadata log would.
    cluster.wait_for("the new leader waiting for controller 8", lambda: learner_waiting(cluster, 8), 30,
                     lambda: quorum(cluster))
    producer.goes_on(cluster, "acknowledgements while 8 stays paused (about 10 s)", 15000, 60)
    cluster.check(adding.poll() is None, f"add-voter 8 ended while controller 8 was paused: {adding.poll()}")
    cluster.signal(8, signal.SIGCONT)
    out, _ = adding.communicate(timeout=120)
    cluster.require(adding.returncode == 0, f"add-voter 8 exited {adding.returncode}: {out}")
    log("add-voter 8: " + " | ".join(out.strip().splitlines()))
    cluster.wait_for("voters 1, 2, 3, 7, 8 current", lambda: voters_current(cluster, [1, 2, 3, 7, 8]), 30,
                     lambda: quorum(cluster))
    producer.goes_on(cluster, "acknowledgements after adding 8", 1000, 30)

    # 3. An old follower's removal appended but not committed when the leader is killed:
    # two of the other voters paused, the new configuration lacks a majority; they
    # continue once the leader is gone, and the same remove-voter command (retrying)
    # completes through the next leader, or finds the removal done (VOTER_NOT_FOUND).
    remaining = [1, 2, 3]
    for attempt in range(1, 4):
        voters = [1, 2, 3] + list(NEW)
        leader = quorum(cluster)["leader_id"]
        gone = next(v for v in remaining if v != leader)
        paused = [v for v in voters if v not in (leader, gone)][:2]
        directory = directory_of(cluster, gone)
        for v in paused:
            cluster.signal(v, signal.SIGSTOP)
        removing = subprocess.Popen([os.path.join(cluster.bin_dir, "strata"), "quorum", "remove-voter", "--id",
                                     str(gone), "--directory-id", directory, "--timeout", "60"],
                                    env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        appended = cluster.wait_for(
            f"the removal of {gone} appended, or refused",
            lambda: removing.poll() is not None or gone not in quorum(cluster)["voters"], 30, lambda: quorum(cluster))
        if removing.poll() is None or removing.returncode == 0:
            break
        # Refused: the leader no longer counted the paused voters as caught up (they had
        # answered more than an election timeout before). Again, from the start.
        out, _ = removing.communicate()
        log(f"attempt {attempt}: remove-voter {gone} refused: {out.strip()}")
        for v in paused:
            cluster.signal(v, signal.SIGCONT)
        cluster.wait_for("the voters current again", lambda: voters_current(cluster, voters), 30,
                         lambda: quorum(cluster))
    cluster.require(appended and removing.returncode in (None, 0), f"remove-voter {gone} refused 3 times")
    cluster.cluster("kill", str(leader))
    log(f"kill -9 the leader {leader} with the removal of {gone} appended, {paused} paused")
    for v in paused:
        cluster.signal(v, signal.SIGCONT)
    out, _ = removing.communicate(timeout=90)
    cluster.require(removing.returncode == 0, f"remove-voter {gone} exited {removing.returncode}: {out}")
    log(f"remove-voter {gone}: " + " | ".join(out.strip().splitlines()))
    remaining.remove(gone)
    cluster.cluster("kill", str(gone))
    cluster.cluster("start", str(leader))
    voters = [v for v in voters if v != gone]
    cluster.wait_for(f"voters without {gone} current, {leader} restarted",
                     lambda: voters_current(cluster, voters), 30, lambda: quorum(cluster))
    producer.goes_on(cluster, f"acknowledgements after removing {gone}", 1000, 30)

    # 4. The other old controllers go, the leader first while it is one of them.
    while len(remaining) > 1:
        leader = quorum(cluster)["leader_id"]
        old = leader if leader in remaining else remaining[0]
        cluster.strata("quorum", "remove-voter", "--id", str(old), "--directory-id", directory_of(cluster, old),
                       "--timeout", "25")
        remaining.remove(old)
        voters = [v for v in voters if v != old]
        cluster.wait_for(f"voters without {old} current, led by one of them",
                         lambda: voters_current(cluster, voters) and quorum(cluster)["leader_id"] in voters, 30,
                         lambda: quorum(cluster))
        cluster.cluster("kill", str(old))
        log(f"removed and stopped controller {old}{' (the leader)' if old == leader else ''}")
        producer.goes_on(cluster, f"acknowledgements after removing {old}", 1000, 30)
    cluster.require(sorted(quorum(cluster)["voters"]) == sorted(remaining + list(NEW)),
                    f"final voters: {quorum(cluster)}")
    created = len(creator.acked)
    cluster.wait_for("topics created through the final quorum", lambda: len(creator.acked) >= created + 5, 30)

    creator.stop()
    log(f"{len(creator.acked)} topics created, {creator.failed} creations failed")
    cluster.check(len(creator.acked) > 20, f"only {len(creator.acked)} topic creations acknowledged")
    listed = {t["name"] for t in cluster.strata("topics", "describe")}
    missing = [n for n in creator.acked if f"meta-{n}" not in listed]
    cluster.check(not missing, f"acknowledged topic creations missing on the quorum: {missing[:10]}")
    known = creator.admin.list_topics(timeout=30).topics
    missing = [n for n in creator.acked if f"meta-{n}" not in known]
    cluster.check(not missing, f"acknowledged topic creations missing in the brokers' metadata: {missing[:10]}")
    check_same_committed_logs(cluster, sorted(remaining + list(NEW)))
    cluster.wait_for("the brokers unfenced",
                     lambda: all(not b["fenced"] for b in cluster.strata("cluster", "describe")["brokers"]), 30)
    check_after_chaos(cluster, TOPIC, PARTITIONS, producer, tailing, STALL_S)

sys.exit(cluster.exit_code())
