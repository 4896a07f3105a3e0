"""The follower tier state machine's figure (issue 15): an empty follower of a partition
with most of its data in the remote tier, with KIP-1023 (follower.fetch.last.tiered.offset.enable)
on and off in the same run: the bytes it fetches (its local log once it is back in the
ISR, having started empty) and the time from its new registration (after the session
timeout fenced the killed incarnation) to its return to the ISR.

3 controllers + 3 brokers, RF 3; two topics, `on` and `off` (the topic override), each
filled with MiB (default 1024) of 1 KiB records (strata-perf, acks=all), 16 MiB segments,
local.retention.bytes 50 MiB. Once the leader has copied all but the active segment and
the replicas' local logs have shrunk, one follower is killed, its replica of the topic
wiped, and started; the clock runs from its registration until the ISR is full again
(polled every 100 ms through the CLI, so about 0.1-0.3 s is polling).
Prints each figure and RESULT tiered_follower {...}.
Usage: /usr/bin/python3 tiered_follower_bench.py <bin dir> <strata-cluster> [MiB]
"""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cluster"))
from replication_harness import Cluster, log  # noqa: E402
from tiered_harness import dir_bytes, tiers  # noqa: E402

SEGMENT = 16 << 20
LOCAL = 50 << 20




def wait(what, condition, timeout):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"not within {timeout} s: {what}")
        time.sleep(0.1)  # polling a condition with a deadline (a benchmark, not a test)


def main():
    mib = int(sys.argv[3]) if len(sys.argv) > 3 else 1024
    remote = tempfile.mkdtemp(prefix="strata-tiered-follower-bench.", dir=os.environ.get("TMPDIR", "/tmp"))
    result = {}
    try:
        with Cluster(sys.argv[1], sys.argv[2], "tiered-follower-bench", budget_s=3000, overrides={
                "remote.log.storage.system.enable": "true", "remote.log.storage.path": remote,
                "remote.log.manager.task.interval.ms": 500, "log.retention.check.interval.ms": 1000,
                "replica.fetch.backoff.ms": 100, "broker.session.timeout.ms": 4000,
                "broker.heartbeat.interval.ms": 250}) as cluster:
            for topic in ("off", "on"):
                cluster.create_topic(topic, 1, 3, {
                    "remote.storage.enable": "true", "segment.bytes": SEGMENT, "local.retention.bytes": LOCAL,
                    "follower.fetch.last.tiered.offset.enable": "true" if topic == "on" else "false"})
                out = subprocess.run([os.path.join(cluster.bin_dir, "strata-perf"), "produce", "--bootstrap-server",
                                      cluster.bootstrap, "--topic", topic, "--num-records", str(mib * 1024),
                                      "--record-size", "1024", "--acks", "-1", "--json"],
                                     capture_output=True, text=True, timeout=1800, check=True)
                log(f"{topic}: produced {json.loads(out.stdout)['mb_per_s']:.1f} MB/s")
                leader = cluster.partition(topic, 0)["leader"]
                part = cluster.partition_dir(leader, topic, 0)
                last_rolled = int(os.path.basename(sorted(glob.glob(os.path.join(part, "*.log")))[-1])[:20]) - 1
                wait(f"{topic}: every rolled segment copied",
                     lambda: tiers(cluster, topic)["highest_copied_offset"] >= last_rolled, 1200)
                wait(f"{topic}: the local logs shrink to about local.retention.bytes",
                     lambda: all(dir_bytes(cluster.partition_dir(b, topic, 0)) <= LOCAL + 2 * SEGMENT
                                 for b in cluster.brokers), 600)
                t = tiers(cluster, topic)
                follower = next(b for b in cluster.brokers if b != leader)
                old_epoch = cluster.broker_epochs()[follower]
                cluster.kill9(follower)
                shutil.rmtree(cluster.partition_dir(follower, topic, 0))
                started = time.monotonic()
                cluster.start(follower)
                # Its new incarnation registers once the old one is fenced (the session
                # timeout); from then on it fetches.
                wait(f"{topic}: broker {follower} registers anew",
                     lambda: cluster.broker_epochs().get(follower, old_epoch) != old_epoch, 120)
                registered = time.monotonic()
                wait(f"{topic}: broker {follower} back in the ISR", lambda: cluster.settled(topic), 1200)
                join_s = time.monotonic() - registered
                held = dir_bytes(cluster.partition_dir(follower, topic, 0))
                result[topic] = {"remote_bytes": t["remote_bytes"], "leader_local_start": t["local_log_start_offset"],
                                 "follower_fetched_bytes": held, "registered_after_s": round(registered - started, 2),
                                 "join_isr_after_registration_s": round(join_s, 2)}
                log(f"{topic}: {json.dumps(result[topic])}")
            print("RESULT tiered_follower " + json.dumps(result), flush=True)
        sys.exit(cluster.exit_code())
    finally:
        shutil.rmtree(remote, ignore_errors=True)


if __name__ == "__main__":
    main()
