"""A follower that stops fetching leaves the ISR and rejoins it when it catches up
(issue 6, test 3).

3 controllers + 3 brokers (real processes), replica.lag.time.max.ms=2000 and
broker.session.timeout.ms=10000: a paused broker leaves the ISR through its leader's
AlterPartition long before the controller would fence it. Topic `lag`: 1 partition,
RF 3, min.insync.replicas 2.
  * A follower is paused (SIGSTOP). Within a few seconds — not before about
    replica.lag.time.max.ms — the ISR is the two others, while the paused broker is
    still registered and unfenced; the leader's log says why it shrank the ISR.
  * acks=all produce goes on (the high watermark no longer waits for the paused one).
  * SIGCONT: the follower fetches what it missed and is back in the ISR; all three
    replicas then hold the same bytes and every acknowledged record once, in order.
Usage: /usr/bin/python3 replication_isr_test.py <bin dir> <strata-cluster>
"""

import signal
import sys
import time

from replication_harness import Cluster, check_sequence, log, produce_values, read_all

TOPIC = "lag"
LAG_MS = 2000

overrides = {
    "broker.session.timeout.ms": 10000,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": LAG_MS,
    "replica.fetch.backoff.ms": 100,
}


def number(value):
    return int(value.split("-")[1])


with Cluster(sys.argv[1], sys.argv[2], "replication-isr", overrides, budget_s=100) as cluster:
    cluster.create_topic(TOPIC, 1, 3, {"min.insync.replicas": 2})
    state = cluster.partition(TOPIC, 0)
    leader, replicas = state["leader"], state["replicas"]
    paused = next(r for r in replicas if r != leader)
    before = produce_values(cluster.bootstrap, TOPIC, 0, [f"before-{i}" for i in range(200)], {"acks": "all"})
    cluster.require(all(err is None for _, _, err in before), "acks=all produce with the full ISR failed")

    at_leader = cluster.address(leader)  # clients avoid the paused broker (it accepts and never answers)
    cluster.signal(paused, signal.SIGSTOP)
    try:
        stopped = time.monotonic()
        cluster.wait_for(f"broker {paused} out of the ISR",
                         lambda: paused not in cluster.partition(TOPIC, 0)["isr"], 20)
        shrunk_after = time.monotonic() - stopped
        log(f"paused broker {paused} left the ISR after {shrunk_after:.1f} s (replica.lag.time.max.ms={LAG_MS})")
        cluster.check(shrunk_after >= LAG_MS / 2000,
                      f"broker {paused} left the ISR {shrunk_after:.1f} s after it paused, before "
                      f"replica.lag.time.max.ms={LAG_MS} could have passed")
        broker = cluster.broker_state(paused)
        cluster.check(broker is not None and not broker["fenced"],
                      f"broker {paused} left the ISR by being fenced ({broker}), not by lagging")
        cluster.check("ISR [" in cluster.server_log(leader) and "followers behind" in cluster.server_log(leader),
                      f"the leader {leader} did not log why it shrank the ISR")
        isr = cluster.partition(TOPIC, 0)["isr"]
        cluster.check(sorted(isr) == sorted(r for r in replicas if r != paused), f"ISR {isr} after the shrink")

        started = time.monotonic()
        during = produce_values(at_leader, TOPIC, 0, [f"during-{i}" for i in range(200)],
                                {"acks": "all", "message.timeout.ms": 10000})
        cluster.check(all(err is None for _, _, err in during),
                      f"acks=all produce with the 2-member ISR failed: {[r for r in during if r[2]][:3]}")
        log(f"acks=all produce without broker {paused}: {time.monotonic() - started:.2f} s")
    finally:
        cluster.signal(paused, signal.SIGCONT)
    resumed = time.monotonic()
    cluster.wait_for(f"broker {paused} back in the ISR", lambda: paused in cluster.partition(TOPIC, 0)["isr"], 20)
    log(f"broker {paused} rejoined the ISR {time.monotonic() - resumed:.1f} s after SIGCONT")

    cluster.wait_for("every replica's log end at the leader's",
                     lambda: len({cluster.log_end(n, TOPIC, 0) for n in replicas}) == 1, 20)
    cluster.check(cluster.replicas_identical(TOPIC, 0, replicas),
                  f"replicas differ: {cluster.describe_difference(TOPIC, 0, replicas)}")
    acked = {(0 if v.startswith("before") else 1, number(v)): o for v, o, _ in before + during}
    consumed, errors = read_all(cluster.bootstrap, TOPIC, 1)
    cluster.check(not errors, f"consumer errors: {errors[:5]}")
    for what, records in [(f"broker {n}'s log", cluster.records(n, TOPIC, 0)) for n in replicas] + \
                         [("the consumer", consumed[0])]:
        check_sequence(cluster, f"{TOPIC}-0 in {what}", records,
                       lambda v: (0 if v.startswith("before-") else 1 if v.startswith("during-") else None,
                                  number(v)) if v.startswith(("before-", "during-")) else None, acked)
        cluster.check(len(records) == 400, f"{what} holds {len(records)} records, not 400")

sys.exit(cluster.exit_code())
