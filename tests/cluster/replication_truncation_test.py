"""A former leader with a tail nobody else has rejoins and truncates it (issue 6, test 2).

3 controllers + 3 brokers (real processes); topic `tail`: 1 partition, RF 3.
replica.lag.time.max.ms is 10 s, so followers paused for well under a second stay in the ISR.
  * 100 records with acks=all reach every replica.
  * Both followers are paused (SIGSTOP). The leader takes two acks=1 produces: `tail-a`,
    which a fetch already waiting at the leader may still carry to a follower, then
    `tail-b`, which no follower can fetch (each has at most one fetch out, answered by
    tail-a's append). Consumers see none of them: the high watermark stays at 100.
  * kill -9 of the leader, SIGCONT of the followers: the controller fences the dead
    leader and elects an ISR follower; tail-b is on the old leader's disk only (read from
    its files) and not on the new leader's. 100 more records (acks=all) go to the new
    leader — past the offsets of the old tail, in a newer epoch.
  * The old leader restarts, rejoins the ISR, and holds exactly the new leader's log: the
    same bytes, the same log end, none of the values only it had.
  * A leader deposed (paused) in an epoch it appended nothing in drops that epoch's
    entry from its leader-epoch-checkpoint (read from its files) and rejoins the ISR. Every replica and a
    consumer hold the acks=all records once each, in order, and no value of the old tail
    that did not survive on the new leader.
Usage: /usr/bin/python3 replication_truncation_test.py <bin dir> <strata-cluster>
"""

import signal
import sys

from replication_harness import Cluster, check_sequence, log, produce_values, read_all

TOPIC = "tail"

overrides = {
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": 10000,
    "replica.fetch.backoff.ms": 100,
}


def number(value):
    """'base-7' -> ('base', 7)."""
    tag, _, n = value.rpartition("-")
    return (tag, int(n)) if n.isdigit() else None


with Cluster(sys.argv[1], sys.argv[2], "replication-truncation", overrides, budget_s=110) as cluster:
    cluster.create_topic(TOPIC, 1, 3)
    first = cluster.partition(TOPIC, 0)
    leader = first["leader"]
    followers = [r for r in first["replicas"] if r != leader]

    base = produce_values(cluster.bootstrap, TOPIC, 0, [f"base-{i}" for i in range(100)], {"acks": "all"})
    cluster.require(all(err is None for _, _, err in base), f"acks=all produce failed: {[r for r in base if r[2]][:3]}")
    cluster.wait_for("every replica at offset 100",
                     lambda: all(cluster.log_end(n, TOPIC, 0) == 100 for n in first["replicas"]), 20)

    # The followers pause; the leader alone takes two acks=1 produces.
    paused = []
    try:
        for f in followers:
            cluster.signal(f, signal.SIGSTOP)
            paused.append(f)
        # Clients bootstrap from the leader alone: a paused broker accepts connections and never answers.
        at_leader = cluster.address(leader)
        tail_a = produce_values(at_leader, TOPIC, 0, [f"tail-a-{i}" for i in range(20)], {"acks": 1})
        tail_b = produce_values(at_leader, TOPIC, 0, [f"tail-b-{i}" for i in range(30)], {"acks": 1})
        cluster.require(all(err is None for _, _, err in tail_a + tail_b),
                        f"acks=1 produce to the leader failed: {[r for r in tail_a + tail_b if r[2]][:3]}")
        # Nothing past the records every ISR member has is served.
        high = read_all(at_leader, TOPIC, 1, timeout=20)[0][0]
        cluster.check(len(high) == 100, f"with its followers paused the leader served {len(high)} records, "
                                        f"not the 100 every replica has: {high[100:103]}")
        cluster.kill9(leader)
    finally:
        for f in paused:
            cluster.signal(f, signal.SIGCONT)

    old_records = cluster.records(leader, TOPIC, 0)  # read from the dead leader's files
    old_values = [v for _, v in old_records]
    cluster.require(all(f"tail-b-{i}" in old_values for i in range(30)),
                    f"the killed leader's log lacks tail-b: it ends {old_values[-3:]}")

    new_leader = cluster.wait_for("an ISR follower to take over",
                                  lambda: next((p["leader"] for p in cluster.partitions(TOPIC)
                                                if p["leader"] in followers), None), 30)
    log(f"broker {new_leader} leads after broker {leader}")
    after = produce_values(cluster.bootstrap, TOPIC, 0, [f"after-{i}" for i in range(100)], {"acks": "all"})
    cluster.require(all(err is None for _, _, err in after),
                    f"acks=all produce to the new leader failed: {[r for r in after if r[2]][:3]}")
    new_values = {v for _, v in cluster.records(new_leader, TOPIC, 0)}
    only_old = [v for v in old_values if v not in new_values]
    cluster.require(any(v.startswith("tail-b-") for v in only_old),
                    f"the new leader has tail-b: nothing to truncate ({len(only_old)} values only on the old leader)")
    log(f"the old leader has {len(only_old)} records the new one lacks: {only_old[0]} .. {only_old[-1]}")

    cluster.start(leader)
    replicas = first["replicas"]
    cluster.wait_for(f"broker {leader} back in the ISR", lambda: cluster.settled(TOPIC), 30)
    cluster.wait_for("every replica's log end at the new leader's",
                     lambda: len({cluster.log_end(n, TOPIC, 0) for n in replicas}) == 1, 30)
    cluster.check(cluster.log_end(leader, TOPIC, 0) == cluster.log_end(new_leader, TOPIC, 0),
                  f"broker {leader}'s log ends at {cluster.log_end(leader, TOPIC, 0)}, "
                  f"the leader's at {cluster.log_end(new_leader, TOPIC, 0)}")
    cluster.check(cluster.replicas_identical(TOPIC, 0, replicas),
                  f"replicas differ: {cluster.describe_difference(TOPIC, 0, replicas)}")
    log_text = cluster.server_log(leader)
    cluster.check("truncating" in log_text, f"broker {leader}'s log does not say it truncated")

    acked = {number(v): o for v, o, _ in base + after}
    survivors = {number(v) for v in new_values}
    consumed, errors = read_all(cluster.bootstrap, TOPIC, 1)
    cluster.check(not errors, f"consumer errors: {errors[:5]}")
    for what, records in [(f"broker {n}'s log", cluster.records(n, TOPIC, 0)) for n in replicas] + \
                         [("the consumer", consumed[0])]:
        values = [v for _, v in records]
        gone = [v for v in only_old if v in values]
        cluster.check(not gone, f"{what} holds {len(gone)} values only the old leader had, e.g. {gone[:3]}")
        # Order: by (phase, n) — base, then the tail the new leader kept, then after.
        rank = {"base": 0, "tail-a": 1, "tail-b": 2, "after": 3}
        check_sequence(cluster, f"{TOPIC}-0 in {what}", records,
                       lambda v: (rank[number(v)[0]], number(v)[1]) if number(v) in survivors else None,
                       {(rank[tag], n): o for (tag, n), o in acked.items()})

    # A leader deposed, alive, in an epoch it appended nothing in: its epoch cache names
    # an epoch the next leader's log never had (its end is this log's end). It must drop
    # that entry although no record goes (as Kafka's truncateTo does) and rejoin the ISR.
    cluster.kill9(new_leader)
    elected = cluster.wait_for(f"a leader after broker {new_leader}",
                               lambda: next((p["leader"] for p in cluster.partitions(TOPIC)
                                             if p["leader"] not in (new_leader, -1)), None), 30)
    epoch = cluster.partition(TOPIC, 0)["leader_epoch"]
    cluster.wait_for(f"broker {elected} to record leader epoch {epoch}",
                     lambda: any(e == epoch for e, _ in cluster.epochs(elected, TOPIC, 0)), 10)
    third = next(r for r in replicas if r not in (new_leader, elected))
    cluster.signal(elected, signal.SIGSTOP)
    try:
        cluster.wait_for(f"broker {third} to lead while broker {elected} is paused",
                         lambda: cluster.partition(TOPIC, 0)["leader"] == third, 30)
    finally:
        cluster.signal(elected, signal.SIGCONT)
    log(f"broker {elected} led epoch {epoch} without appending: its epochs {cluster.epochs(elected, TOPIC, 0)}, "
        f"the new leader {third}'s {cluster.epochs(third, TOPIC, 0)}")
    later = produce_values(cluster.bootstrap, TOPIC, 0, [f"later-{i}" for i in range(50)], {"acks": "all"})
    cluster.require(all(err is None for _, _, err in later),
                    f"acks=all produce to broker {third} failed: {[r for r in later if r[2]][:3]}")
    # It names the empty epoch no more: dropped from its checkpoint, which becomes the
    # leader's (the new leader's log never had that epoch).
    cluster.wait_empty_epoch_dropped(elected, third, TOPIC, 0, epoch, 20)
    cluster.wait_for(f"broker {elected}, deposed in an epoch without records, back in the ISR",
                     lambda: elected in cluster.partition(TOPIC, 0)["isr"], 20)
    cluster.start(new_leader)
    cluster.wait_for("the full ISR", lambda: cluster.settled(TOPIC), 30)
    cluster.wait_for("every replica's log end at the leader's",
                     lambda: len({cluster.log_end(n, TOPIC, 0) for n in replicas}) == 1, 30)
    cluster.check(cluster.replicas_identical(TOPIC, 0, replicas),
                  f"replicas differ after the second change: {cluster.describe_difference(TOPIC, 0, replicas)}")
    rank["later"] = 4
    survivors |= {number(v) for v, _, _ in later}
    acked.update({number(v): o for v, o, _ in later})
    for n in replicas:
        check_sequence(cluster, f"{TOPIC}-0 on broker {n} at the end", cluster.records(n, TOPIC, 0),
                       lambda v: (rank[number(v)[0]], number(v)[1]) if number(v) in survivors else None,
                       {(rank[tag], n): o for (tag, n), o in acked.items()})

sys.exit(cluster.exit_code())
