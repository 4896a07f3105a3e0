"""What the tiered storage process tests share: a cluster whose brokers tier to one
remote directory of the test (the shared volume), removed afterwards (kept with
STRATA_KEEP_TEST_DIR), or to an S3 object store (`strata-cluster up --object-store`: MinIO
on loopback), and reading a partition's tiers, segment bytes and remote objects on either
(DirectoryTier, S3Tier: the same questions of the two stores)."""

import glob
import os
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

from kafka_probe import connect_when_listening, fetch_error
from replication_harness import Cluster, TestFailed, client_error_logger, log

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
    """remote_dir: the filesystem store's directory, or None for the S3 store (the
    cluster's own MinIO). tier() answers questions about the remote objects."""

    def __init__(self, bin_dir, script, name, remote_dir, budget_s, overrides=None, **kwargs):
        store = {"remote.log.storage.path": remote_dir} if remote_dir else {}
        super().__init__(bin_dir, script, name, budget_s=budget_s,
                         overrides={**TIERED_OVERRIDES, **store, **(overrides or {})}, **kwargs)
        self.remote_dir = remote_dir

    def before_up(self):
        return [] if self.remote_dir else ["--object-store"]

    def tier(self):
        return DirectoryTier(self.remote_dir) if self.remote_dir else S3Tier(self.dir)


def backend_from_argv(argv):
    """`--backend filesystem|s3` after the usual arguments (filesystem by default)."""
    if "--backend" in argv:
        backend = argv[argv.index("--backend") + 1]
        if backend not in ("filesystem", "s3"):
            raise SystemExit(f"--backend {backend}: filesystem or s3")
        return backend
    return "filesystem"


def with_remote_dir(name, run, backend="filesystem"):
    """run(remote_dir) with a fresh remote directory, removed afterwards; with the s3
    backend run(None) (the cluster brings its object store)."""
    if backend == "s3":
        run(None)
        return
    remote_dir = tempfile.mkdtemp(prefix=f"strata-{name}-remote.", dir=os.environ.get("TMPDIR", "/tmp"))
    try:
        run(remote_dir)
    finally:
        if not os.environ.get("STRATA_KEEP_TEST_DIR"):
            shutil.rmtree(remote_dir, ignore_errors=True)


class DirectoryTier:
    """The filesystem store: <root>/<topic id>-<partition>/<segment id>.<suffix>."""

    def __init__(self, root):
        self.root = root

    def partitions(self, partition=0):
        return sorted(os.path.basename(p) for p in glob.glob(os.path.join(self.root, f"*-{partition}")))

    def objects(self, name, suffix=".log"):
        """{segment id: bytes} of the partition's objects with suffix ("": every object,
        by its whole name)."""
        out = {}
        for p in glob.glob(os.path.join(self.root, name, "*" + suffix)):
            try:
                out[os.path.basename(p)[:len(os.path.basename(p)) - len(suffix)]] = os.path.getsize(p)
            except FileNotFoundError:
                pass
        return out

    def leftovers(self, name):
        """Objects half-written (a .tmp left)."""
        return glob.glob(os.path.join(self.root, name, "*.tmp"))

    def corrupt(self, name, segment_id, at):
        with open(os.path.join(self.root, name, segment_id + ".log"), "r+b") as f:
            f.seek(at)
            byte = f.read(1)
            f.seek(at)
            f.write(bytes([byte[0] ^ 0xFF]))


class S3Tier:
    """The S3 store of a `strata-cluster up --object-store` cluster, through curl's SigV4:
    <bucket>/<topic id>-<partition>/<segment id>.<suffix>."""

    def __init__(self, cluster_dir):
        with open(os.path.join(cluster_dir, "cluster.env")) as f:
            props = dict(line.strip().split("=", 1) for line in f if "=" in line)
        self.endpoint = props["object.store.endpoint"]
        self.bucket = props["object.store.bucket"]
        with open(props["object.store.credentials"]) as f:
            creds = dict(line.strip().split("=", 1) for line in f if "=" in line)
        self.user = f"{creds['aws_access_key_id']}:{creds['aws_secret_access_key']}"

    def _call(self, method, key="", query=None, data=None):
        url = f"{self.endpoint}/{self.bucket}/{urllib.parse.quote(key)}"
        if query:
            url += "?" + "&".join(f"{urllib.parse.quote(k, safe='')}={urllib.parse.quote(str(v), safe='')}"
                                  for k, v in sorted(query.items()))
        args = ["curl", "-sS", "-f", "--max-time", "60", "-X", method, "--aws-sigv4", "aws:amz:us-east-1:s3",
                "--user", self.user, url]
        if data is not None:
            # curl signs a body read from stdin as if empty: the payload goes unsigned.
            args += ["--data-binary", "@-", "-H", "Content-Type: application/octet-stream",
                     "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"]
        done = subprocess.run(args, input=data, capture_output=True, timeout=90)
        if done.returncode != 0:
            raise RuntimeError(f"{method} {url}: {done.stderr.decode()[-300:]}")
        return done.stdout

    def list(self, prefix):
        """{key: size} of every object under prefix."""
        out, token = {}, None
        while True:
            query = {"list-type": "2", "prefix": prefix}
            if token:
                query["continuation-token"] = token
            root = ET.fromstring(self._call("GET", query=query))
            ns = root.tag[:root.tag.index("}") + 1] if root.tag.startswith("{") else ""
            for c in root.findall(f"{ns}Contents"):
                out[c.find(f"{ns}Key").text] = int(c.find(f"{ns}Size").text)
            if (root.findtext(f"{ns}IsTruncated") or "false") != "true":
                return out
            token = root.findtext(f"{ns}NextContinuationToken")

    def partitions(self, partition=0):
        return sorted({k.split("/")[0] for k in self.list("") if k.split("/")[0].endswith(f"-{partition}")})

    def objects(self, name, suffix=".log"):
        return {k[len(name) + 1:len(k) - len(suffix)]: size for k, size in self.list(name + "/").items()
                if k.endswith(suffix)}

    def leftovers(self, name):
        """Multipart uploads begun and neither completed nor aborted."""
        root = ET.fromstring(self._call("GET", query={"uploads": "", "prefix": name + "/"}))
        ns = root.tag[:root.tag.index("}") + 1] if root.tag.startswith("{") else ""
        return [u.findtext(f"{ns}Key") for u in root.findall(f"{ns}Upload")]

    def put_file(self, path, key):
        """PUT of a local file (the benchmarks' baseline: the store's own upload)."""
        args = ["curl", "-sS", "-f", "--max-time", "600", "-X", "PUT", "--aws-sigv4", "aws:amz:us-east-1:s3",
                "--user", self.user, "-T", path, "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD",
                f"{self.endpoint}/{self.bucket}/{urllib.parse.quote(key)}"]
        subprocess.run(args, check=True, capture_output=True, timeout=700)

    def get_to_null(self, key):
        """GET of an object, its bytes thrown away (the benchmarks' baseline)."""
        args = ["curl", "-sS", "-f", "--max-time", "600", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", self.user,
                "-o", "/dev/null", f"{self.endpoint}/{self.bucket}/{urllib.parse.quote(key)}"]
        subprocess.run(args, check=True, capture_output=True, timeout=700)

    def delete_prefix(self, prefix):
        for key in self.list(prefix):
            self._call("DELETE", key)

    def corrupt(self, name, segment_id, at):
        key = f"{name}/{segment_id}.log"
        data = bytearray(self._call("GET", key))
        data[at] ^= 0xFF
        self._call("PUT", key, data=bytes(data))


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


# ---- records that name their number, produced and read back (the store tests) ---------

RECORD_BYTES = 1024  # record_value's default size


def record_value(n, size=RECORD_BYTES):
    """Record n's value: its number, then bytes that depend on it."""
    head = f"{n:09d}:".encode()
    return head + bytes((n * 7 + i) % 251 for i in range(size - len(head)))


def produce_records(cluster, producer, topic, first, count, acked, failed, after_each=None, flush_s=120):
    """Records first .. first + count - 1 to partition 0 of topic; acked[n] = offset,
    failed gets (n, error); after_each(n) once record n is handed to the producer; fails
    the test if a delivery report is missing after flush_s."""
    def report(n):
        def on_delivery(err, msg):
            if err is None:
                acked[n] = msg.offset()
            else:
                failed.append((n, str(err)))
        return on_delivery

    for n in range(first, first + count):
        while True:
            try:
                producer.produce(topic, value=record_value(n), partition=0, on_delivery=report(n))
                break
            except BufferError:
                producer.poll(0.05)
        producer.poll(0)
        if after_each is not None:
            after_each(n)
    left = producer.flush(flush_s)
    cluster.require(left == 0, f"{left} records had no delivery report")


def idempotent_producer(cluster, errors):
    """acks=all, idempotent, small batches: the store tests' producer."""
    return Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "linger.ms": 5, "batch.size": 64 << 10,
                     "enable.idempotence": True, "message.timeout.ms": 60000,
                     "error_cb": client_error_logger("producer", errors)})


def wait_copied_and_shrunk(cluster, topic, end, segment, local_retention, what):
    """Copies reach the active segment (within two segments of end) and every replica's
    local log shrinks to about local_retention."""
    cluster.wait_for(f"copies reach the active segment {what}",
                     lambda: tiers(cluster, topic)["highest_copied_offset"] >= end - 2 * segment // RECORD_BYTES, 90,
                     state=lambda: tiers(cluster, topic))
    cluster.wait_for(f"every local log shrinks {what}", lambda: all(
        dir_bytes(cluster.partition_dir(b, topic, 0)) <= local_retention + 3 * segment for b in cluster.brokers),
        60, state=lambda: {b: dir_bytes(cluster.partition_dir(b, topic, 0)) for b in cluster.brokers})


def leader_fetch_error(cluster, topic, offset):
    """The error code of the partition 0 leader's own answer to a consumer's Fetch at
    offset (a client would retry a retriable one)."""
    leader = cluster.partition(topic, 0)["leader"]
    with connect_when_listening(cluster.address(leader), 30) as sock:
        return fetch_error(sock, topic, 0, offset)


def first_local_offset(cluster, broker, topic):
    """The base offset of the replica's oldest local segment of partition 0."""
    files = cluster.segments(broker, topic, 0)
    return int(os.path.basename(files[0])[:20]) if files else None


class InOrderConsumer(threading.Thread):
    """A consumer of partition 0 from offset 0 until `end` records, as an application runs
    one: on a thread of its own (start()) or in the caller's (run()). records holds
    (offset, value) in the order they were delivered, so that a record skipped or given
    twice shows; errors the consumer errors it saw (its fetches answered an error)."""

    def __init__(self, cluster, topic, end, name="consumer", timeout=180, config=None):
        super().__init__(name=name, daemon=True)
        self.topic, self.end, self.timeout = topic, end, timeout
        self.config = {"bootstrap.servers": cluster.bootstrap, "group.id": f"{topic}-{name}",
                       "enable.auto.commit": False, "fetch.max.bytes": 4 << 20, **(config or {})}
        self.records = []
        self.errors = []
        self.failure = None

    def run(self):
        try:
            consumer = Consumer(self.config)
        except Exception as e:  # on a thread: the test reads the failure from check()
            self.failure = f"{self.name} could not start: {e}"
            return
        try:
            consumer.assign([TopicPartition(self.topic, 0, 0)])
            deadline = time.monotonic() + self.timeout
            while len(self.records) < self.end:
                if time.monotonic() > deadline:
                    self.failure = f"{self.name} read {len(self.records)} records from offset 0 in {self.timeout} s, " \
                                   f"not {self.end}"
                    return
                for msg in consumer.consume(2000, timeout=0.5):
                    if msg.error() is None:
                        self.records.append((msg.offset(), msg.value()))
                    elif msg.error().code() != KafkaError._PARTITION_EOF:
                        self.errors.append(str(msg.error()))
        finally:
            consumer.close()

    def check(self, cluster, acked):
        """Every acknowledged record once, at its offset, offsets 0 .. end - 1 in order."""
        offsets = [o for o, _ in self.records]
        cluster.check(self.failure is None, self.failure or "")
        cluster.check(offsets == list(range(len(offsets))),
                      f"{self.name}: offsets not delivered in order from 0, each once: "
                      f"first wrong at index {next((i for i, o in enumerate(offsets) if o != i), None)}")
        got = dict(self.records)
        wrong = [n for n, offset in acked.items() if got.get(offset) != record_value(n)]
        cluster.check(not wrong, f"{self.name}: {len(wrong)} acknowledged records missing or changed, e.g. {wrong[:5]}")


def read_from_zero(cluster, topic, end, timeout=180):
    """{offset: value} of partition 0 from offset 0 until end records are read."""
    reader = InOrderConsumer(cluster, topic, end, name="unused", timeout=timeout)
    reader.run()
    if reader.failure:
        raise TestFailed(reader.failure)
    for e in reader.errors[:5]:
        log(f"consumer: {e}")
    got = {}
    for offset, value in reader.records:
        got.setdefault(offset, value)
    return got


def check_acked(cluster, topic, acked):
    """A consumer from offset 0 reads every acknowledged record at its offset."""
    got = read_from_zero(cluster, topic, max(acked.values()) + 1)
    wrong = [n for n, offset in acked.items() if got.get(offset) != record_value(n)]
    cluster.check(not wrong, f"{len(wrong)} acknowledged records missing or changed, e.g. {wrong[:5]}")
    log(f"read {len(got)} records from offset 0, every acknowledged one at its offset")

