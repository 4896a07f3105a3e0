"""Acknowledged records survive network partitions: isolated leaders, followers, the active
controller, and a split of the cluster 1/2.

3 controllers + 3 brokers, each in a network namespace of its own (netns_cluster.py), the
test's clients in one more; topic `partition`: 3 partitions, RF 3, min.insync.replicas 2.
An idempotent confluent-kafka producer (acks=all) sends numbered values at a steady rate
and a consumer tails the topic while the rounds of PLAN, in a seeded order and with
seeded victims (the seed is printed; STRATA_TEST_SEED=N repeats the choices, which also
depend on who leads at the time), partition the network:
  * leader:     the leader of a random partition is isolated from every other node;
  * follower:   a follower of a random partition likewise (it leads another partition);
  * controller: the active controller likewise;
  * split:      one controller and one broker are cut from the other two controllers and
                brokers, the clients reaching both sides; the minority holds the active
                controller or not.
"reachable": the clients still reach the isolated node (a stale leader the producer
keeps writing to); "full": they do not. A partition lasts until the majority side has
acted on it (one of its controllers active, every cut broker fenced and out of every
ISR), has acknowledged a seeded 500-2500 values more (the majority takes writes), and
has stayed whole for a broker session timeout plus a seeded 1-2 s more (no broker of the
majority fenced: they reach its active controller); then the network heals, and the
round ends once the cluster is healthy again (a controller active, every broker
unfenced, every ISR full), every partition takes writes again, and the preferred
leaders lead (so that each broker leads one partition again).
Afterwards (check_after_chaos, as replication_chaos_test.py): every replica holds the
same log; on every replica (the whole ISR, so at least min.insync.replicas) and through a
consumer, each acknowledged value is there once, at its acknowledged offset, in
production order; nothing the tailing consumer was served is lost; no delivery failure.
And an isolated leader acknowledged nothing once it was cut off: every value of its
partitions acknowledged between GRACE_S after the cut and the heal is in the final log
in a later leader epoch than the one the cut broker led in.
STRATA_PARTITION_ROUNDS=leader,split/active-in-majority runs only those rounds (kinds,
or kind/variant).
Usage: /usr/bin/python3 partition_chaos_test.py <bin dir> <strata-cluster>
"""

import bisect
import collections
import os
import sys

from netns_cluster import CLIENT, NetnsCluster, skip_unless_netns
from replication_harness import NumberedProducer, TailingConsumer, TestFailed, check_after_chaos, log, seeded_random

TOPIC = "partition"
PARTITIONS = 3
PLAN = ["leader/reachable", "leader/full", "follower/reachable", "follower/full", "controller/reachable",
        "controller/full", "split/active-in-minority", "split/active-in-majority"]
# Acknowledgements in flight when a cut is made may still arrive this long after it.
GRACE_S = 1.0
# Acknowledgements never stop this long: a cut broker is fenced after the session timeout
# (3 s); produce to the partitions it does not lead goes on meanwhile.
STALL_S = 20
# A produce request on a connection that went silent (a leader cut off from its clients)
# is given up after this; then librdkafka asks for metadata and finds the new leader.
REQUEST_TIMEOUT_MS = 10000

overrides = {
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 100,
}


def rounds(rng):
    plan = list(PLAN)
    rng.shuffle(plan)
    only = [r for r in os.environ.get("STRATA_PARTITION_ROUNDS", "").split(",") if r]
    if only:
        plan = [r for r in plan if r in only or r.split("/")[0] in only]
        log(f"rounds limited by STRATA_PARTITION_ROUNDS to {plan}")
    return plan


def victims(cluster, rng, kind, variant, parts, active):
    """The nodes a round cuts off from the rest."""
    if kind == "leader":
        return [parts[rng.randrange(PARTITIONS)]["leader"]]
    if kind == "follower":
        p = parts[rng.randrange(PARTITIONS)]
        return [rng.choice([b for b in p["isr"] if b != p["leader"]])]
    if kind == "controller":
        return [active]
    others = [c for c in range(1, cluster.controllers + 1) if c != active]
    return [active if variant == "active-in-minority" else rng.choice(others), rng.choice(cluster.brokers)]


skip_unless_netns()
with NetnsCluster(sys.argv[1], sys.argv[2], "partition-chaos", overrides, budget_s=170) as cluster:
    rng = seeded_random("partition-chaos")
    plan = rounds(rng)
    cluster.create_topic(TOPIC, PARTITIONS, 3, {"min.insync.replicas": 2})
    producer = NumberedProducer(cluster.bootstrap, TOPIC, PARTITIONS, "partition",
                                {"enable.idempotence": True, "request.timeout.ms": REQUEST_TIMEOUT_MS},
                                rate=1000).start()
    tailing = TailingConsumer(cluster.bootstrap, TOPIC, PARTITIONS)
    cluster.wait_for("the first 500 acknowledgements", lambda: producer.acked_at_least(500), 30)
    session_s = int(cluster.setting(cluster.brokers[0], "broker.session.timeout.ms")) / 1000
    voters = dict(v.split("@", 1) for v in cluster.env["STRATA_BOOTSTRAP_CONTROLLER"].split(","))

    def majority_view(controllers):
        """`strata cluster describe` and the topic's partitions as the given controllers see them."""
        bootstrap = ",".join(f"{c}@{voters[str(c)]}" for c in controllers)
        described = cluster.strata("--bootstrap-controller", bootstrap, "cluster", "describe")
        parts = cluster.strata("--bootstrap-controller", bootstrap, "topics", "describe", TOPIC)[0]["partitions"]
        return described, parts

    def majority_acted(controllers, cut_brokers):
        """One of controllers is active, and it fenced every cut broker and moved it out of every ISR."""
        described, parts = majority_view(controllers)
        fenced = {b["id"] for b in described["brokers"] if b["fenced"]}
        return described["controller_id"] in controllers and all(b in fenced for b in cut_brokers) and \
            all(b not in p["isr"] and p["leader"] != b for p in parts for b in cut_brokers)

    def majority_whole(controllers, cut_brokers):
        """majority_acted, and no broker of the majority fenced: raises TestFailed at once when
        one is (its heartbeats do not reach the majority's active controller)."""
        described, parts = majority_view(controllers)
        fenced = [b["id"] for b in described["brokers"] if b["fenced"] and b["id"] not in cut_brokers]
        if fenced:
            raise TestFailed(f"brokers {fenced} of the majority side were fenced while partitioned: "
                             f"{(described, parts)}")
        return majority_acted(controllers, cut_brokers)

    def acked_per_partition():
        with producer.lock:
            counts = collections.Counter(p for p, _ in producer.acked.values())
        return [counts[p] for p in range(PARTITIONS)]

    def every_partition_goes_on(what, records=100):
        """Waits for records more acknowledgements in every partition (the producer found every
        current leader), unless librdkafka stopped the producer on a fatal error."""
        before = acked_per_partition()
        since = lambda: [now - then for now, then in zip(acked_per_partition(), before)]  # noqa: E731
        cluster.wait_for(f"produce to go on in every partition {what}",
                         lambda: producer.fatal is not None or min(since()) >= records, STALL_S,
                         lambda: f"acknowledged since, by partition: {since()}; {cluster.cluster_state(TOPIC)}")

    # (t_cut, t_heal, {partition: (broker, leader epoch)} of the leaders cut off, values sent meanwhile, what)
    windows = []

    def run_round(rnd, round_name):
        """Cuts the round's victims off, holds the partition, heals, waits for the cluster to recover."""
        kind, variant = round_name.split("/")
        parts = cluster.partitions(TOPIC)
        active = cluster.active_controller()
        cut_nodes = victims(cluster, rng, kind, variant, parts, active)
        majority = [n for n in cluster.nodes() if n not in cut_nodes]
        cut_brokers = [n for n in cut_nodes if n in cluster.brokers]
        majority_controllers = [n for n in majority if n not in cluster.brokers]
        led = {p["partition"]: (p["leader"], p["leader_epoch"]) for p in parts if p["leader"] in cut_brokers}
        log(f"round {rnd + 1}/{len(plan)}: {round_name}: cutting {cut_nodes} off (active controller {active}; "
            f"leaders {[p['leader'] for p in parts]}); {producer.acked_count()} acknowledged so far")
        if kind == "split":
            cluster.split(cut_nodes, majority)
        else:
            cluster.isolate(cut_nodes[0], clients=variant == "full")
        t_cut, sent_at_cut = cluster.elapsed(), producer.sent
        try:
            cluster.wait_for(f"the majority {majority} to act on the partition",
                             lambda: majority_acted(majority_controllers, cut_brokers), 30,
                             lambda: majority_view(majority_controllers))
            hold_until = cluster.elapsed() + session_s + rng.uniform(1, 2)
            acked_until = producer.acked_count() + rng.randrange(500, 2500)
            cluster.wait_for(f"the majority {majority} to stay whole for a broker session more and take writes",
                             lambda: majority_whole(majority_controllers, cut_brokers) and
                             cluster.elapsed() >= hold_until and producer.acked_at_least(acked_until), STALL_S,
                             lambda: f"{producer.acked_count()} of {acked_until} acknowledged (by partition "
                                     f"{acked_per_partition()}); {majority_view(majority_controllers)}")
        finally:
            t_heal = cluster.elapsed()
            cluster.heal()
            windows.append((t_cut, t_heal, led, producer.sent - sent_at_cut, f"round {rnd + 1} ({round_name})"))
        log(f"round {rnd + 1}: partitioned for {t_heal - t_cut:.1f} s")
        cluster.wait_for(f"the cluster healthy again after round {rnd + 1}", lambda: cluster.healthy(TOPIC), 60,
                         lambda: cluster.cluster_state(TOPIC))
        every_partition_goes_on(f"after round {rnd + 1}")
        cluster.rebalance(TOPIC)

    # A round that fails is recorded and, once the cluster is healthy again, the next one runs.
    failed_rounds = []
    for rnd, round_name in enumerate(plan):
        try:
            run_round(rnd, round_name)
        except TestFailed as e:
            failed_rounds.append(round_name)
            cluster.check(False, f"round {rnd + 1} ({round_name}): {e}")
            cluster.heal()
            try:
                cluster.wait_for(f"the cluster healthy again after the failed round {rnd + 1}",
                                 lambda: cluster.healthy(TOPIC), 60, lambda: cluster.cluster_state(TOPIC))
                cluster.rebalance(TOPIC)
            except TestFailed as e:
                cluster.check(False, f"the cluster did not recover from round {rnd + 1}, the rest do not run: {e}")
                break
    cluster.check(not failed_rounds, f"{len(failed_rounds)} of the {len(plan)} rounds failed: {failed_rounds}")

    left = {e: cluster.network.routes(e) for e in cluster.nodes() + [CLIENT]}
    cluster.check(not any(left.values()), f"blackhole routes left after the last heal: {left}")

    final = check_after_chaos(cluster, TOPIC, PARTITIONS, producer, tailing, STALL_S)

    # An isolated leader acknowledged no write it could not replicate. Such a write exists
    # only in its own log, which the heal truncates: so every value of its partitions
    # acknowledged between GRACE_S after the cut and the heal is in the final log at its
    # acknowledged offset. (It may be in the cut broker's epoch: written and replicated
    # before the cut, and acknowledged late, as the new leader's answer to a retry that it
    # holds as a duplicate; librdkafka retries a batch answered NOT_LEADER_OR_FOLLOWER.)
    for index in range(PARTITIONS):
        batches = cluster.batches(cluster.leader(TOPIC, index), TOPIC, index)
        firsts = [b["baseOffset"] for b in batches]

        def epoch_at(offset):
            i = bisect.bisect_right(firsts, offset) - 1
            return batches[i]["partitionLeaderEpoch"] if i >= 0 and offset <= batches[i]["lastOffset"] else None

        held = dict(final.get(index, []))
        with producer.lock:
            acks = [(producer.acked_at[n] - cluster.started, n, o) for n, (p, o) in producer.acked.items()
                    if p == index]
        for t_cut, t_heal, led, sent, what in windows:
            if index not in led:
                continue
            broker, epoch = led[index]
            during = [(n, o, epoch_at(o)) for t, n, o in acks if t_cut + GRACE_S < t <= t_heal]
            lost = [(n, o, e) for n, o, e in during if held.get(o) != producer.value(n).decode()]
            late = [(n, o, e) for n, o, e in during if e is not None and e <= epoch]
            if cluster.check(not lost, f"{TOPIC}-{index}, {what}: while broker {broker}, leading in epoch {epoch}, was "
                                       f"cut off, {len(lost)} values were acknowledged that the final log does not hold "
                                       f"at their offsets, e.g. {lost[:5]} (n, offset, leader epoch in the final log)"):
                log(f"{TOPIC}-{index}, {what}: of about {sent // PARTITIONS} values sent while leader {broker} (epoch "
                    f"{epoch}) was cut off, {len(during)} acknowledged, each in the final log at its offset "
                    f"({len(late)} written before the cut, e.g. {late[:3]})")

sys.exit(cluster.exit_code())
