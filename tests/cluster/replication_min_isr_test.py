"""acks=all below min.insync.replicas is refused with NOT_ENOUGH_REPLICAS, and works again
when a replica returns (issue 6, test 4).

3 controllers + 3 brokers (real processes); topic `mir`: 1 partition, RF 3,
min.insync.replicas 2.
  * kill -9 of the leader; the controller elects a follower, which records its new epoch
    (leader-epoch-checkpoint) and is killed too before it appends anything. The last ISR
    member leads alone (ISR of one).
  * acks=all produce (confluent-kafka, retries=0 so the broker's error is what the
    delivery report shows): every record fails with NOT_ENOUGH_REPLICAS, and nothing is
    appended (the leader's log end does not move). kcat -P with acks=all exits non-zero.
  * acks=1 produce still succeeds (min.insync.replicas only concerns acks=all).
  * The second broker killed restarts: its log has an epoch that holds no records (it
    led without appending), which the leader's log does not know; it must drop that
    entry (its leader-epoch-checkpoint no longer names the epoch), catch up and rejoin the ISR (Kafka's truncateTo keeps the epoch cache in line
    even when nothing is cut) — then acks=all succeeds again.
  * With all three back, the replicas hold the same bytes; a consumer reads every
    acknowledged record once, in order, and none of the refused ones.
Usage: /usr/bin/python3 replication_min_isr_test.py <bin dir> <strata-cluster>
"""

import subprocess
import sys

from confluent_kafka import KafkaError

from replication_harness import Cluster, check_sequence, log, produce_values, read_all

TOPIC = "mir"

overrides = {
    "broker.session.timeout.ms": 2000,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 100,
}

PHASES = ("before", "acks1", "after", "refused", "kcat")


def number(value):
    tag, _, n = value.rpartition("-")
    return (PHASES.index(tag), int(n)) if tag in PHASES and n.isdigit() else None


with Cluster(sys.argv[1], sys.argv[2], "replication-min-isr", overrides, budget_s=100) as cluster:
    cluster.create_topic(TOPIC, 1, 3, {"min.insync.replicas": 2})
    state = cluster.partition(TOPIC, 0)
    leader, replicas = state["leader"], state["replicas"]
    before = produce_values(cluster.bootstrap, TOPIC, 0, [f"before-{i}" for i in range(100)], {"acks": "all"})
    cluster.require(all(err is None for _, _, err in before), "acks=all produce with the full ISR failed")

    cluster.kill9(leader)
    follower = cluster.wait_for("a follower to take over",
                                lambda: next((p["leader"] for p in cluster.partitions(TOPIC)
                                              if p["leader"] not in (leader, -1)), None), 30)
    epoch = cluster.partition(TOPIC, 0)["leader_epoch"]
    cluster.wait_for(f"broker {follower} to record leader epoch {epoch}",
                     lambda: any(e == epoch for e, _ in cluster.epochs(follower, TOPIC, 0)), 10)
    cluster.kill9(follower)  # before it appended anything in its epoch
    survivor = next(r for r in replicas if r not in (leader, follower))
    cluster.wait_for(f"broker {survivor} to lead alone",
                     lambda: (lambda p: p["leader"] == survivor and p["isr"] == [survivor])(cluster.partition(TOPIC, 0)),
                     30)
    log(f"broker {follower} led epoch {epoch} without records: its epochs {cluster.epochs(follower, TOPIC, 0)}, "
        f"broker {survivor}'s {cluster.epochs(survivor, TOPIC, 0)}")
    at_survivor = cluster.address(survivor)
    end = cluster.log_end(survivor, TOPIC, 0)

    refused = produce_values(at_survivor, TOPIC, 0, [f"refused-{i}" for i in range(10)],
                             {"acks": "all", "retries": 0, "message.timeout.ms": 10000})
    codes = sorted({err.code() if err else None for _, _, err in refused}, key=str)
    cluster.check(codes == [KafkaError.NOT_ENOUGH_REPLICAS],
                  f"acks=all with an ISR of 1 < min.insync.replicas 2 gave {[str(e) for _, _, e in refused[:3]]}, "
                  f"expected NOT_ENOUGH_REPLICAS")
    log(f"acks=all with an ISR of one: {refused[0][2]}")
    kcat = subprocess.run(["kcat", "-P", "-b", at_survivor, "-t", TOPIC, "-p", "0", "-X", "acks=all",
                           "-X", "message.timeout.ms=2000"], input="kcat-0\nkcat-1\n", capture_output=True, text=True,
                          timeout=60)
    cluster.check(kcat.returncode != 0, f"kcat -P acks=all with an ISR of one exited 0: {kcat.stderr[-300:]}")
    log(f"kcat -P acks=all with an ISR of one: exit {kcat.returncode}, {kcat.stderr.strip()[-200:]!r}")
    cluster.check(cluster.log_end(survivor, TOPIC, 0) == end,
                  f"the refused produces moved the log end from {end} to {cluster.log_end(survivor, TOPIC, 0)}")

    acks1 = produce_values(at_survivor, TOPIC, 0, [f"acks1-{i}" for i in range(50)], {"acks": 1})
    cluster.check(all(err is None for _, _, err in acks1),
                  f"acks=1 with an ISR of one failed: {[str(e) for _, _, e in acks1 if e][:3]}")

    cluster.start(follower)
    # It drops that entry: its checkpoint becomes the leader's (which never had the epoch).
    cluster.wait_empty_epoch_dropped(follower, survivor, TOPIC, 0, epoch, 30)
    cluster.wait_for(f"broker {follower} back in the ISR", lambda: follower in cluster.partition(TOPIC, 0)["isr"], 30)
    after = produce_values(cluster.bootstrap, TOPIC, 0, [f"after-{i}" for i in range(100)],
                           {"acks": "all", "enable.idempotence": True})
    cluster.check(all(err is None for _, _, err in after),
                  f"acks=all with {follower} back failed: {[str(e) for _, _, e in after if e][:3]}")

    cluster.start(leader)
    cluster.wait_for("the full ISR", lambda: cluster.settled(TOPIC), 30)
    cluster.wait_for("every replica's log end at the leader's",
                     lambda: len({cluster.log_end(n, TOPIC, 0) for n in replicas}) == 1, 20)
    cluster.check(cluster.replicas_identical(TOPIC, 0, replicas),
                  f"replicas differ: {cluster.describe_difference(TOPIC, 0, replicas)}")
    acked = {number(v): o for v, o, _ in before + acks1 + after}
    consumed, errors = read_all(cluster.bootstrap, TOPIC, 1)
    cluster.check(not errors, f"consumer errors: {errors[:5]}")
    for what, records in [(f"broker {n}'s log", cluster.records(n, TOPIC, 0)) for n in replicas] + \
                         [("the consumer", consumed[0])]:
        check_sequence(cluster, f"{TOPIC}-0 in {what}", records,
                       lambda v: number(v) if number(v) and number(v)[0] < PHASES.index("refused") else None, acked)
        cluster.check(len(records) == 250, f"{what} holds {len(records)} records, not 250")

sys.exit(cluster.exit_code())
