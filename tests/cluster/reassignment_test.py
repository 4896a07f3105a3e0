"""Partition reassignment under load, through kill -9 of the controller and of a source
broker (issue 38).

3 controllers + 4 brokers (4, 5, 6, 7; real processes); topic `moving`: 3 partitions,
RF 3, min.insync.replicas 2, placed on brokers 4, 5 and 6 only. An idempotent
confluent-kafka producer (acks=all) sends numbered values and a consumer tails the
topic throughout. With `strata partitions reassign execute | verify`:
  1. every partition moves its replica on broker 4 to broker 7 (partition 0 loses its
     leader that way): verify says completed, the replicas are the plan's with full ISRs,
     broker 7 holds every partition and broker 4 has deleted its copies;
  2. they move back, with the new replica's broker (4) paused by SIGSTOP so that the
     reassignment stays in progress (ListPartitionReassignments shows it adding 4,
     removing 7) while the active controller is killed with -9, then broker 7 (the
     source, leading partition 0); both restart, broker 4 continues, the reassignment
     completes and broker 7 deletes its copies;
  3. broker 7 now holds nothing, as a broker just added to the cluster: `strata cluster
     balance --execute` moves replicas of `moving` and of `spread` (60 partitions on
     brokers 4, 5 and 6) and of the other topics to it until, once the moves completed
     and the preferred leaders were elected (`strata leaders elect`), every broker's
     replica count and leader count over all topics are within one of every other's.
Afterwards (replication_harness.check_after_chaos): every acknowledged value exactly once
at its acknowledged offset on every replica and through a consumer, the replicas
byte-identical, nothing served that was then lost, no delivery failure and no
acknowledgement stall of STALL_S.
Usage: /usr/bin/python3 reassignment_test.py <bin dir> <strata-cluster>
"""

import json
import os
import signal
import subprocess
import sys

from replication_harness import Cluster, NumberedProducer, TailingConsumer, check_after_chaos, log

TOPIC = "moving"
PARTITIONS = 3
STALL_S = 15
# Placement before the first move: each partition on 4, 5 and 6, leaders spread.
START = {0: [4, 5, 6], 1: [5, 6, 4], 2: [6, 4, 5]}
SPREAD = 60  # partitions of the topic `spread`, RF 3 on brokers 4, 5 and 6
MOVED = {p: [7 if b == 4 else b for b in replicas] for p, replicas in START.items()}

overrides = {
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 100,
}


def plan_file(cluster, name, assignment):
    path = os.path.join(cluster.dir, f"{name}.json")
    with open(path, "w") as f:
        json.dump({"version": 1, "partitions": [{"topic": TOPIC, "partition": p, "replicas": r}
                                                for p, r in sorted(assignment.items())]}, f)
    return path


def strata(cluster, *args):
    """The strata CLI's JSON answer and exit code (verify exits 1 while any is in progress)."""
    out = subprocess.run([os.path.join(cluster.bin_dir, "strata"), *args, "-o", "json"], env=cluster.env,
                         capture_output=True, text=True, timeout=30)
    return (json.loads(out.stdout) if out.stdout.strip() else None), out.returncode, out.stderr


def execute(cluster, plan):
    answer, code, err = strata(cluster, "partitions", "reassign", "execute", "--plan", plan)
    cluster.require(code == 0 and all(r["result"] == "started" for r in answer),
                    f"reassign execute {plan}: exit {code}: {answer} {err}")


def completed(cluster, plan):
    answer, code, _ = strata(cluster, "partitions", "reassign", "verify", "--plan", plan)
    return code == 0 and answer is not None and all(r["state"] == "completed" for r in answer)


def holds(cluster, broker, index):
    return any(os.path.isdir(os.path.join(d, f"{TOPIC}-{index}")) for d in cluster.log_dir_paths(broker))


def moved_as_planned(cluster, assignment, gone):
    """The partitions have the planned replicas, full ISRs, and broker `gone` holds none."""
    parts = cluster.partitions(TOPIC)
    return (all(p["replicas"] == assignment[p["partition"]] and sorted(p["isr"]) == sorted(p["replicas"]) and
                not p["adding_replicas"] and not p["removing_replicas"] for p in parts) and
            not any(holds(cluster, gone, p) for p in range(PARTITIONS)))


with Cluster(sys.argv[1], sys.argv[2], "reassignment", overrides, budget_s=200, brokers=4) as cluster:
    assignment = ",".join(":".join(str(b) for b in START[p]) for p in range(PARTITIONS))
    subprocess.run([os.path.join(cluster.bin_dir, "strata"), "topics", "create", TOPIC, "--replica-assignment",
                    assignment, "--config", "min.insync.replicas=2"], env=cluster.env, check=True,
                   stdout=subprocess.DEVNULL, timeout=30)
    cluster.wait_for(f"{TOPIC} on its replicas with full ISRs", lambda: cluster.isr_full(TOPIC), 30)
    subprocess.run([os.path.join(cluster.bin_dir, "strata"), "topics", "create", "spread", "--replica-assignment",
                    ",".join(":".join(str(4 + (p + i) % 3) for i in range(3)) for p in range(SPREAD))],
                   env=cluster.env, check=True, stdout=subprocess.DEVNULL, timeout=30)
    producer = NumberedProducer(cluster.bootstrap, TOPIC, PARTITIONS, "moving",
                                {"enable.idempotence": True, "request.timeout.ms": 30000}, rate=1500).start()
    tailing = TailingConsumer(cluster.bootstrap, TOPIC, PARTITIONS)
    producer.goes_on(cluster, "the first 1000 acknowledgements", 1000, 30)

    # 1. Broker 4's replicas move to broker 7.
    to_7 = plan_file(cluster, "to-7", MOVED)
    execute(cluster, to_7)
    cluster.wait_for("the move to broker 7 to complete", lambda: completed(cluster, to_7), 60,
                     lambda: cluster.partitions(TOPIC))
    cluster.wait_for("the planned replicas in sync, broker 4's copies deleted",
                     lambda: moved_as_planned(cluster, MOVED, gone=4), 30, lambda: cluster.partitions(TOPIC))
    producer.goes_on(cluster, "acknowledgements after the first move", 1000, 30)
    log("moved to broker 7: " + str(cluster.partitions(TOPIC)))

    # 2. Back to broker 4, paused, through kill -9 of the controller and the source broker.
    cluster.signal(4, signal.SIGSTOP)
    back = plan_file(cluster, "back-to-4", START)
    execute(cluster, back)
    listed, _, _ = strata(cluster, "partitions", "reassign", "list")
    cluster.check(sorted((r["partition"], r["adding_replicas"], r["removing_replicas"]) for r in listed or []) ==
                  [(p, [4], [7]) for p in range(PARTITIONS)], f"reassignments in progress: {listed}")
    controller = cluster.strata("cluster", "describe")["controller_id"]
    cluster.require(1 <= controller <= cluster.controllers, f"no active controller: {controller}")
    cluster.cluster("kill", str(controller))
    log(f"kill -9 the active controller {controller}")
    cluster.kill9(7)
    producer.goes_on(cluster, "acknowledgements with the controller and broker 7 killed", 500, 30)
    cluster.cluster("start", str(controller))
    cluster.start(7)
    cluster.check(not completed(cluster, back), "the move back completed with broker 4 paused")
    cluster.signal(4, signal.SIGCONT)
    cluster.wait_for("the move back to broker 4 to complete", lambda: completed(cluster, back), 60,
                     lambda: cluster.partitions(TOPIC))
    cluster.wait_for("the planned replicas in sync, broker 7's copies deleted",
                     lambda: moved_as_planned(cluster, START, gone=7), 30, lambda: cluster.partitions(TOPIC))
    producer.goes_on(cluster, "acknowledgements after the move back", 1000, 30)
    log("moved back to broker 4: " + str(cluster.partitions(TOPIC)))

    # 3. Broker 7, holding nothing, balanced in (once its new incarnation is unfenced:
    # balancing places replicas on usable brokers only).
    cluster.wait_for("every broker registered anew and unfenced", lambda: cluster.settled(TOPIC), 60)
    answer, code, err = strata(cluster, "cluster", "balance", "--execute")
    cluster.require(code == 0 and isinstance(answer, list) and answer and all(r["result"] == "started" for r in answer),
                    f"cluster balance --execute: exit {code}: {answer} {err}")
    listed = lambda: strata(cluster, "partitions", "reassign", "list")[0]
    cluster.wait_for("the balancing moves to complete", lambda: listed() == [], 60, listed)
    cluster.wait_for("full ISRs after balancing", lambda: cluster.isr_full(TOPIC) and cluster.isr_full("spread"), 30)
    strata(cluster, "leaders", "elect")

    def shares():
        replicas, leaders = {b: 0 for b in cluster.brokers}, {b: 0 for b in cluster.brokers}
        for topic in cluster.strata("topics", "describe"):  # every topic, __consumer_offsets too
            for p in topic["partitions"]:
                for b in p["replicas"]:
                    replicas[b] += 1
                leaders[p["leader"]] = leaders.get(p["leader"], 0) + 1
        return replicas, leaders

    def even():
        replicas, leaders = shares()
        return (max(replicas.values()) - min(replicas.values()) <= 1 and
                max(leaders.values()) - min(leaders.values()) <= 1)
    cluster.wait_for("every broker's replicas and leaders within one of the others'", even, 30, shares)
    log(f"balanced: (replicas, leaders) per broker {shares()}")

    check_after_chaos(cluster, TOPIC, PARTITIONS, producer, tailing, STALL_S)

sys.exit(cluster.exit_code())
