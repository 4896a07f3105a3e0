"""Tiered storage figures (issue 14), each against a baseline measured in the same run:

  * produce latency with copying on vs off: strata-perf produce, acks=all, 1 KiB records
    at a fixed rate, into a topic without remote storage and into one whose leader copies
    every rolled segment (16 MiB segments) while the producer runs; twice each,
    alternating. p50 / p99 of the request latency.
  * copy throughput vs cp: a topic filled with remote storage off, then turned on
    (remote.storage.enable=true): the time until the leader has copied every rolled
    segment (strata topics describe --tiers, polled every 50 ms), against `cp` of the
    same segment files (.log, .index, .timeindex) and a sync, into the same file system.
  * remote fetch vs local fetch vs cat: strata-perf consume of that topic from offset 0
    once local retention removed its rolled segments (served from the remote tier but
    its last segment), against strata-perf consume of the same number of bytes from a
    topic held locally, and `cat` of the remote .log objects to /dev/null. The first
    remote round finds the leader's chunk cache (rsm.config.fetch.chunk.cache.*) cold:
    every block comes from the store, the next ones ahead of the consumer (prefetch); then
    three rounds, alternating, with the cache warm (the median of each).
Everything is in the page cache (the machine cannot drop caches): the figures compare
the code paths, not disks. 3 controllers + 3 brokers on 127.0.0.1, RF 3.
With `--backend s3` the remote tier is the cluster's MinIO (strata-cluster up
--object-store) and the baselines are that server's own: curl PUT (SigV4) of the same
segment files one after another instead of cp, and curl GET of the remote .log objects
instead of cat; the produce latency also runs a third time with the copy quota
(remote.log.manager.copy.max.bytes.per.second, THROTTLE_MB_S) set as the cluster default.
Prints each figure and RESULT tiered_storage {...} (tiered_storage_s3 with --backend s3).
--segment-mib N sets the topics' segment.bytes (16 MiB by default: small segments show
what the prefetch into the next copy does), --override KEY=VALUE (repeatable) a broker
setting (e.g. rsm.config.fetch.chunk.cache.prefetch.max.size=0 for a run without
prefetch).
Usage: /usr/bin/python3 tiered_bench.py <bin dir> <strata-cluster> [MiB] [--backend filesystem|s3]
       [--segment-mib N] [--override KEY=VALUE]...
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
from replication_harness import log  # noqa: E402
from tiered_harness import TieredCluster, backend_from_argv, tiers  # noqa: E402

SEGMENT = 16 << 20
THROTTLE_MB_S = 10
RECORD = 1024
RATE = 20000  # records/s for the latency runs


def perf(cluster, *args):
    out = subprocess.run([os.path.join(cluster.bin_dir, "strata-perf"), *args, "--bootstrap-server",
                          cluster.bootstrap, "--json"], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"strata-perf {args}: {out.stderr[-500:]}")
    return json.loads(out.stdout)



def timed(command):
    start = time.monotonic()
    subprocess.run(command, shell=True, check=True)
    return time.monotonic() - start


def option_values(name):
    """The values given as `name VALUE` on the command line, in order."""
    return [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == name]


def main():
    s3 = backend_from_argv(sys.argv) == "s3"
    global SEGMENT
    SEGMENT = int(option_values("--segment-mib")[-1]) << 20 if option_values("--segment-mib") else SEGMENT
    extra = dict(o.split("=", 1) for o in option_values("--override"))
    mib = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3].isdigit() else 256
    records = mib * 1024
    remote = tempfile.mkdtemp(prefix="strata-tiered-bench-remote.", dir=os.environ.get("TMPDIR", "/tmp"))
    result = {}
    try:
        with TieredCluster(sys.argv[1], sys.argv[2], "tiered-bench", None if s3 else remote, budget_s=1200, overrides={
                "remote.log.manager.task.interval.ms": 200, "log.retention.check.interval.ms": 500,
                "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 300, **extra}) as cluster:
            tier = cluster.tier()
            common = {"segment.bytes": SEGMENT, "min.insync.replicas": 2}
            for name in ("plain", "copying", "backlog"):
                configs = dict(common)
                if name == "copying":
                    configs.update({"remote.storage.enable": "true", "local.retention.bytes": 2 * SEGMENT})
                cluster.create_topic(name, 1, 3, configs)

            # Produce latency, copying off (plain) and on (copying), alternating; with S3
            # also copying under the copy quota.
            modes = [("off", "plain", None), ("on", "copying", None)]
            if s3:
                modes.append(("throttled", "copying", THROTTLE_MB_S << 20))
            latency = {mode: [] for mode, _, _ in modes}
            for _ in range(2):
                for mode, topic, quota in modes:
                    if quota:
                        cluster.strata("configs", "alter", "--broker", "--set",
                                       f"remote.log.manager.copy.max.bytes.per.second={quota}")
                    r = perf(cluster, "produce", "--topic", topic, "--num-records", str(records // 2),
                             "--record-size", str(RECORD), "--acks", "-1", "--throughput", str(RATE))
                    if quota:
                        cluster.strata("configs", "alter", "--broker", "--delete",
                                       "remote.log.manager.copy.max.bytes.per.second")
                    latency[mode].append(r)
                    log(f"produce {mode}: {json.dumps(r)}")
            copies = tiers(cluster, "copying")
            log(f"copying: {copies['remote_segment_count']} segments copied, highest {copies['highest_copied_offset']}")

            # Copy throughput: a backlog of rolled segments, then remote storage turned on.
            perf(cluster, "produce", "--topic", "backlog", "--num-records", str(records), "--record-size", str(RECORD),
                 "--acks", "-1")
            leader = cluster.partition("backlog", 0)["leader"]
            part_dir = cluster.partition_dir(leader, "backlog", 0)
            logs = sorted(glob.glob(os.path.join(part_dir, "*.log")))[:-1]  # rolled only
            rolled = sum(os.path.getsize(p) for p in logs)
            last_rolled_end = int(os.path.basename(sorted(glob.glob(os.path.join(part_dir, "*.log")))[-1])[:20]) - 1
            scratch = tempfile.mkdtemp(prefix="strata-tiered-bench-cp.", dir=os.path.dirname(remote))
            paths = [p[:-4] + ext for p in logs for ext in (".log", ".index", ".timeindex")]
            if s3:  # the store's own PUT of the same bytes, one file after another
                start = time.monotonic()
                for i, p in enumerate(paths):
                    tier.put_file(p, f"baseline/{i}")
                cp_s = time.monotonic() - start
                tier.delete_prefix("baseline/")
            else:
                cp_s = timed(f"cp {' '.join(paths)} {scratch}/ && sync")
            shutil.rmtree(scratch, ignore_errors=True)
            start = time.monotonic()
            cluster.strata("configs", "alter", "--topic", "backlog", "--set", "remote.storage.enable=true",
                           "--set", f"local.retention.bytes={SEGMENT}")
            while tiers(cluster, "backlog")["highest_copied_offset"] < last_rolled_end:
                if time.monotonic() - start > 600:
                    raise RuntimeError("the backlog was not copied in 600 s")
                time.sleep(0.05)  # polling a condition with a deadline (a benchmark, not a test)
            copy_s = time.monotonic() - start
            copy_mb_s = rolled / copy_s / 1e6
            cp_mb_s = rolled / cp_s / 1e6
            log(f"copy: {rolled} bytes in {copy_s:.2f} s = {copy_mb_s:.1f} MB/s; {'PUT' if s3 else 'cp + sync'} "
                f"{cp_s:.2f} s = {cp_mb_s:.1f} MB/s")

            # Remote fetch once local retention removed the copied segments.
            deadline = time.monotonic() + 120
            while tiers(cluster, "backlog")["local_log_start_offset"] <= 0 and time.monotonic() < deadline:
                time.sleep(0.1)  # polling a condition with a deadline
            t = tiers(cluster, "backlog")
            log(f"backlog: log start {t['log_start_offset']}, local log start {t['local_log_start_offset']}")
            # Three rounds, alternating; the median of each.
            partition = [p for p in tier.partitions() if tier.objects(p)]
            objects = {f"{name}/{segment}.log": size for name in partition
                       for segment, size in tier.objects(name).items()}
            object_bytes = sum(objects.values())
            remote_runs, local_runs, cat_runs = [], [], []
            cold = perf(cluster, "consume", "--topic", "backlog")
            log(f"remote fetch with the chunk cache cold {cold['batch_mb_per_s']:.1f} MB/s")
            for _ in range(3):
                remote_runs.append(perf(cluster, "consume", "--topic", "backlog"))
                local_runs.append(perf(cluster, "consume", "--topic", "plain"))
                if s3:
                    start = time.monotonic()
                    for key in objects:
                        tier.get_to_null(key)
                    cat_runs.append(object_bytes / (time.monotonic() - start) / 1e6)
                else:
                    cat_runs.append(object_bytes / timed(
                        "cat " + " ".join(os.path.join(remote, k) for k in objects) + " > /dev/null") / 1e6)
                log(f"remote fetch {remote_runs[-1]['batch_mb_per_s']:.1f} MB/s, local fetch "
                    f"{local_runs[-1]['batch_mb_per_s']:.1f} MB/s, {'GET' if s3 else 'cat'} of {len(objects)} "
                    f"remote objects {cat_runs[-1]:.1f} MB/s")
            remote_fetch = sorted(remote_runs, key=lambda r: r["batch_mb_per_s"])[1]
            local_fetch = sorted(local_runs, key=lambda r: r["batch_mb_per_s"])[1]
            cat_mb_s = sorted(cat_runs)[1]
            result = {
                "produce_latency_ms": {mode: [{"p50": round(r["request_latency"]["p50_ms"], 2),
                                               "p99": round(r["request_latency"]["p99_ms"], 2),
                                               "mb_s": round(r["mb_per_s"], 1)} for r in runs]
                                       for mode, runs in latency.items()},
                "copy_mb_s": round(copy_mb_s, 1), ("put_mb_s" if s3 else "cp_mb_s"): round(cp_mb_s, 1),
                "remote_fetch_cold_mb_s": round(cold["batch_mb_per_s"], 1),
                "remote_fetch_warm_mb_s": round(remote_fetch["batch_mb_per_s"], 1),
                "remote_fetch_bytes": remote_fetch["batch_bytes"],
                "local_fetch_mb_s": round(local_fetch["batch_mb_per_s"], 1), "local_fetch_bytes": local_fetch["batch_bytes"],
                ("get_remote_mb_s" if s3 else "cat_remote_mb_s"): round(cat_mb_s, 1),
                "segment_bytes": SEGMENT, "overrides": extra,
            }
            print(f"RESULT tiered_storage{'_s3' if s3 else ''} " + json.dumps(result), flush=True)
        sys.exit(cluster.exit_code())
    finally:
        shutil.rmtree(remote, ignore_errors=True)


if __name__ == "__main__":
    main()
