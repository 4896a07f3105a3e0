"""A broker's session stream: a dead broker is fenced at once, a live one never.

1 controller + 3 brokers, each in a network namespace of its own (netns_cluster.py), with
a broker session of SESSION_MS (longer than strata-cluster's 3000, so that fencing within
half of it can only come from the stream); topic `session`: 3 partitions, RF 3. Rounds,
in order:
  * reset:     the connections of a live broker to the controller are reset from the
               broker's side (`ss -K` in its namespace: an RST, as a middlebox or a crashed
               NIC would send). The controller sees the stream break, its probe of the
               broker's listener is accepted, and the broker keeps its session: it opens
               a new stream and is never fenced, its registration unchanged.
  * partition: a broker is cut off from every node and client (blackhole routes). Its
               connections go silent, nothing breaks, and it is fenced by its session
               timing out: not before SESSION_MS less one heartbeat interval after the cut,
               with the controller's "missed its session" line. Healed, it is unfenced.
  * kill:      kill -9 of a broker that leads a partition. Its stream breaks, its listener
               refuses, and the controller fences it within half a session (the log
               line says why), moving its leaderships to in-sync replicas. Restarted, it
               registers again and the ISRs fill.
Usage: /usr/bin/python3 session_stream_test.py <bin dir> <strata-cluster>
"""

import re
import subprocess
import sys
import time

from netns_cluster import NetnsCluster, skip_unless_netns
from replication_harness import log

TOPIC = "session"
SESSION_MS = 6000
HEARTBEAT_MS = 300
CONTROLLER = 1


def main():
    skip_unless_netns()
    overrides = {"broker.session.timeout.ms": SESSION_MS, "broker.heartbeat.interval.ms": HEARTBEAT_MS}
    with NetnsCluster(sys.argv[1], sys.argv[2], "session-stream", overrides=overrides, budget_s=200,
                      brokers=3, controllers=1) as cluster:
        run(cluster)
    sys.exit(cluster.exit_code())


def controller_lines(cluster, pattern):
    return re.findall(pattern, cluster.server_log(CONTROLLER), re.MULTILINE)


def opened(cluster, broker):
    return len(controller_lines(cluster, rf"broker {broker} opened its session stream \(epoch \d+\); its process is "
                                         r"checked at"))


def fenced(cluster, broker):
    state = cluster.broker_state(broker)
    return state is not None and state["fenced"]


def run(cluster):
    b_reset, b_cut, _ = cluster.brokers
    cluster.create_topic(TOPIC, 3, 3)
    cluster.wait_for("the cluster to be healthy", lambda: cluster.healthy(TOPIC), 30, lambda: cluster.cluster_state(TOPIC))
    cluster.wait_for("every broker's session stream to be open, its listener reachable from the controller",
                     lambda: all(opened(cluster, b) >= 1 for b in cluster.brokers), 10)

    # ---- reset: a live broker's connections are reset --------------------------------
    epoch = cluster.broker_epochs()[b_reset]
    streams = opened(cluster, b_reset)
    broke = len(controller_lines(cluster, rf"broker {b_reset}'s session stream \(epoch {epoch}\) broke, but its process "
                                          r"is not known to be gone"))
    ns = cluster.network.namespace(b_reset)
    subprocess.run(["ip", "netns", "exec", ns, "ss", "-K", "dst", cluster.network.host(CONTROLLER)], check=True,
                   stdout=subprocess.DEVNULL)
    log(f"reset broker {b_reset}'s connections to the controller (ss -K)")
    cluster.wait_for(f"the controller to see broker {b_reset}'s stream break and find it alive",
                     lambda: len(controller_lines(cluster, rf"broker {b_reset}'s session stream \(epoch {epoch}\) "
                                                           r"broke, but its process is not known to be gone")) > broke, 10)
    cluster.wait_for(f"broker {b_reset} to open its session stream again", lambda: opened(cluster, b_reset) > streams, 10)
    state = cluster.broker_state(b_reset)
    cluster.check(not state["fenced"] and state["epoch"] == epoch,
                  f"broker {b_reset} kept its registration (epoch {epoch}, unfenced) after a reset: {state}")
    cluster.check(not controller_lines(cluster, rf"broker {b_reset} lost its session stream"),
                  f"the controller never fenced live broker {b_reset} for its stream")

    # ---- partition: silent connections are bounded by the session ----------------------
    cut_at = time.monotonic()
    cluster.isolate(b_cut, clients=True)
    cluster.wait_for(f"broker {b_cut} to be fenced", lambda: fenced(cluster, b_cut), SESSION_MS / 1000 + 10,
                     lambda: cluster.cluster_state(TOPIC))
    after_s = time.monotonic() - cut_at
    log(f"broker {b_cut} fenced {after_s:.2f} s after it was cut off (session {SESSION_MS} ms)")
    cluster.check(after_s >= (SESSION_MS - HEARTBEAT_MS) / 1000 - 0.1,
                  f"a cut-off broker is fenced by its session timing out, not sooner: {after_s:.2f} s after the cut")
    cluster.check(controller_lines(cluster, rf"broker {b_cut} missed its session") and
                  not controller_lines(cluster, rf"broker {b_cut} lost its session stream"),
                  f"broker {b_cut} was fenced because its session timed out")
    cluster.heal()
    cluster.wait_for("the cluster to be healthy after the heal", lambda: cluster.healthy(TOPIC), 30,
                     lambda: cluster.cluster_state(TOPIC))

    # ---- kill: a dead broker is fenced at once ------------------------------------------
    cluster.rebalance(TOPIC)
    victim = cluster.leader(TOPIC, 0)
    led = [p["partition"] for p in cluster.partitions(TOPIC) if p["leader"] == victim]
    killed_at = time.monotonic()
    cluster.kill9(victim)
    cluster.wait_for(f"killed broker {victim} to be fenced within half a session", lambda: fenced(cluster, victim),
                     SESSION_MS / 2000, lambda: cluster.cluster_state(TOPIC))
    log(f"broker {victim} fenced {time.monotonic() - killed_at:.3f} s after kill -9 (session {SESSION_MS} ms)")
    cluster.check(controller_lines(cluster, rf"broker {victim} lost its session stream and its listeners refuse "
                                            r"connections \(the process is gone\): fenced"),
                  f"the controller says why it fenced broker {victim}")
    for p in cluster.partitions(TOPIC):
        if p["partition"] in led:
            cluster.check(p["leader"] not in (victim, -1) and p["leader"] in p["isr"] and victim not in p["isr"],
                          f"partition {p['partition']} moved from broker {victim} to an in-sync replica: {p}")
    cluster.start(victim)
    cluster.wait_for("the cluster to be healthy after the restart", lambda: cluster.healthy(TOPIC), 30,
                     lambda: cluster.cluster_state(TOPIC))


if __name__ == "__main__":
    main()
