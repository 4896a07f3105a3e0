#!/usr/bin/python3
"""Preferred leaders come back (issue 18): auto.leader.rebalance.enable with
leader.imbalance.check.interval.seconds=1, 1 controller and 3 brokers, a 6-partition
topic at RF 3 (each broker the preferred leader, the first replica, of two).

Under an idempotent acks=all producer, the broker that is the preferred leader of
partitions is killed with kill -9: its leaderships move to other in-sync replicas. It is
restarted: once it is back in the ISRs, the active controller's imbalance check moves its
preferred partitions back to it, so that every partition is led by its preferred replica
again, with no client action (the controller logs the move). Then every acknowledged
record is read back at its acknowledged offset, once, in order.

Usage: preferred_leader_test.py <bin dir> <strata-cluster>
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replication_harness import Cluster, NumberedProducer, check_numbered, log, read_all  # noqa: E402

TOPIC = "preferred"
PARTITIONS = 6

overrides = {
    "broker.session.timeout.ms": 2000,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 100,
    "leader.imbalance.check.interval.seconds": 1,
}


def main():
    with Cluster(sys.argv[1], sys.argv[2], "preferred-leader", overrides=overrides, budget_s=150,
                 controllers=1) as cluster:
        cluster.create_topic(TOPIC, PARTITIONS, 3)
        preferred = lambda: all(p["leader"] == p["replicas"][0] for p in cluster.partitions(TOPIC))  # noqa: E731
        cluster.wait_for("every partition led by its preferred replica", preferred, 30)
        producer = NumberedProducer(cluster.bootstrap, TOPIC, PARTITIONS, "pl", config={"enable.idempotence": True},
                                    rate=500)
        producer.start()
        producer.goes_on(cluster, "the producer", 500, 30)

        victim = cluster.partition(TOPIC, 0)["replicas"][0]
        cluster.kill9(victim)
        cluster.wait_for(f"broker {victim}'s partitions to have other leaders",
                         lambda: all(p["leader"] not in (victim, -1) for p in cluster.partitions(TOPIC)), 30,
                         state=lambda: cluster.cluster_state(TOPIC))
        producer.goes_on(cluster, "the producer while the broker is down", 500, 30)
        cluster.check(not preferred(), "every partition is still led by its preferred replica with one broker down")

        cluster.start(victim)
        cluster.wait_for(f"broker {victim} to lead its preferred partitions again", preferred, 60,
                         state=lambda: cluster.cluster_state(TOPIC))
        controller_log = cluster.server_log(1)
        cluster.check("partitions back to their preferred leader" in controller_log,
                      "the controller did not log moving leaderships back")
        producer.goes_on(cluster, "the producer after the leaders came back", 500, 30)

        left = producer.stop()
        cluster.check(left == 0, f"{left} records still unacknowledged after the producer stopped")
        cluster.check(not producer.failed, f"{len(producer.failed)} records failed: {list(producer.failed.items())[:3]}")
        got, errors = read_all(cluster.bootstrap, TOPIC, PARTITIONS)
        for p in range(PARTITIONS):
            check_numbered(cluster, f"{TOPIC}[{p}]", got[p], producer, p)
        log(f"{producer.acked_count()} acknowledged records read back; consumer errors: {errors[:3]}")
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
