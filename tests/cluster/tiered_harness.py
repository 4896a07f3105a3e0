"""What the tiered storage process tests share: a cluster whose brokers tier to one
remote directory of the test (the shared volume), removed afterwards (kept with
STRATA_KEEP_TEST_DIR), and reading a partition's tiers and segment bytes."""

import glob
import os
import shutil
import tempfile

from replication_harness import Cluster

# Fast remote log manager and retention passes, fast fencing of a killed broker.
TIERED_OVERRIDES = {
    "remote.log.storage.system.enable": "true",
    "remote.log.manager.task.interval.ms": 300,
    "remote.log.manager.task.retry.backoff.ms": 100,
    "log.retention.check.interval.ms": 500,
    "replica.fetch.backoff.ms": 100,
    "broker.session.timeout.ms": 4000,
    "broker.heartbeat.interval.ms": 250,
}


class TieredCluster(Cluster):
    def __init__(self, bin_dir, script, name, remote_dir, budget_s, overrides=None):
        super().__init__(bin_dir, script, name, budget_s=budget_s,
                         overrides={**TIERED_OVERRIDES, "remote.log.storage.path": remote_dir, **(overrides or {})})


def with_remote_dir(name, run):
    """run(remote_dir) with a fresh remote directory, removed afterwards."""
    remote_dir = tempfile.mkdtemp(prefix=f"strata-{name}-remote.", dir=os.environ.get("TMPDIR", "/tmp"))
    try:
        run(remote_dir)
    finally:
        if not os.environ.get("STRATA_KEEP_TEST_DIR"):
            shutil.rmtree(remote_dir, ignore_errors=True)


def tiers(cluster, topic):
    """strata topics describe --tiers of the topic's partition 0 (JSON)."""
    return cluster.strata("topics", "describe", topic, "--tiers")[0]["partitions"][0]


def dir_bytes(path, pattern="*.log"):
    """The bytes of the files matching pattern in path. Retention deletes segments while
    a test looks: one gone since the listing counts as nothing."""
    total = 0
    for p in glob.glob(os.path.join(path, pattern)):
        try:
            total += os.path.getsize(p)
        except FileNotFoundError:
            pass
    return total
