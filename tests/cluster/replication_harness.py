"""What the replication process tests share: a real cluster, real clients, replica files.

Run by Debian's /usr/bin/python3 (python3-confluent-kafka lives there). A test does

    with Cluster(sys.argv[1], sys.argv[2], "chaos", overrides=...) as cluster:
        ...
    sys.exit(cluster.exit_code())

Cluster starts 3 controllers and 3 brokers with tools/strata-cluster (127.0.0.1, free
ports, a temp dir) and always stops them when the block ends — also on an exception, a
SIGTERM/SIGINT/SIGHUP or the test's own time budget (SIGALRM): paused nodes are
continued first so that their shutdown can run, and the node logs' tails are printed
when a check failed (also when the cluster did not come up). Waits are conditions polled
with a deadline (wait_for); a failed wait or require() ends the test, check() records a
failure and goes on. A subclass may set up around the nodes with before_up() (extra
`strata-cluster up` arguments) and after_down() (tests/netns/ puts each node in a network
namespace of its own that way).

Replica contents are read from the partition's segment files with strata-storage dump
(read-only; a broker may be running): batches, records, and the concatenated bytes of
the .log segments, which are equal on replicas holding the same log whatever their
segment boundaries.
"""

import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition

# The first line of why a server died: an Abseil RAW report (a lock-order cycle among
# them), a failed check, a sanitizer's report, an uncaught exception.
FATAL_MARKERS = re.compile(r"RAW: |Check failed|ERROR: AddressSanitizer|runtime error:|terminate called")


class TestFailed(Exception):
    """A failed require() or wait_for(): the test cannot go on."""


class Budget(Exception):
    """The test ran past its time budget or was asked to stop."""


def log(*args):
    print(time.strftime("%H:%M:%S"), *args, file=sys.stderr, flush=True)


def _interrupt(signum, frame):
    raise Budget(f"stopped by signal {signal.Signals(signum).name}")


class Cluster:
    def __init__(self, bin_dir, cluster_script, name, overrides=None, budget_s=150, brokers=3, controllers=3,
                 log_dirs=1, env=None, node_env=None, ssl=False, dynamic=False):
        """log_dirs: per broker (strata-cluster --log-dirs). env: added to the environment of
        everything run from here, the nodes included. node_env: a function of the cluster's
        dir giving extra environment variables for the nodes only (e.g. LD_PRELOAD): the
        environment of strata-cluster, which the nodes it starts inherit (its own helper
        commands too), but not of the strata CLI or strata-storage run from here. ssl:
        brokers also get an SSL listener (strata-cluster up --ssl): ssl_bootstrap,
        ssl_ca_location."""
        self.bin_dir = os.path.abspath(bin_dir)
        self.script = os.path.abspath(cluster_script)
        self.name = name
        self.overrides = dict(overrides or {})
        self.node_env_of = node_env
        self.node_env = {}
        self.ssl = ssl
        self.dynamic = dynamic
        self.added_controllers = []  # add_controller()'s
        self.ssl_bootstrap = None
        self.ssl_ca_location = None
        self.budget_s = budget_s
        self.brokers = list(range(controllers + 1, controllers + brokers + 1))
        self.controllers = controllers
        self.log_dirs = log_dirs
        self.failures = []
        self.stopped_epochs = {}  # broker -> the registration epoch it was stopped with
        self.dir = None
        self.env = dict(os.environ, STRATA_BIN_DIR=self.bin_dir, **(env or {}))
        self.started = time.monotonic()

    # ---- lifecycle -----------------------------------------------------------------
    def __enter__(self):
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM):
            signal.signal(s, _interrupt)
        signal.alarm(self.budget_s)
        self.dir = tempfile.mkdtemp(prefix=f"strata-{self.name}-test.", dir=os.environ.get("TMPDIR", "/tmp"))
        try:
            self._up()
        except BaseException:
            # No with-block runs, so no __exit__: stop what did start (and print its logs).
            self.__exit__(*sys.exc_info())
            raise
        log(f"{self.name}: cluster up in {self.dir} ({self.elapsed():.1f} s)")
        return self

    def before_up(self):
        """A subclass's set-up before the nodes start (tests/netns/ makes its namespaces):
        returns extra `strata-cluster up` arguments. Undone by after_down()."""
        return []

    def after_down(self):
        """Runs once the nodes are down (or failed to stop), also when before_up() failed."""

    def _up(self):
        if self.node_env_of is not None:
            self.node_env = dict(self.node_env_of(self.dir))
        args = ["up", "--controllers", str(self.controllers), "--brokers", str(len(self.brokers)),
                "--log-dirs", str(self.log_dirs)]
        for key, value in self.overrides.items():
            args += ["--override", f"{key}={value}"]
        if self.ssl:
            args.append("--ssl")
        if self.dynamic:
            args.append("--dynamic")
        self.cluster(*args, *self.before_up())
        with open(os.path.join(self.dir, "cluster.env")) as f:
            props = dict(line.strip().split("=", 1) for line in f if "=" in line)
        self.bootstrap = props["bootstrap.servers"]
        self.ssl_bootstrap = props.get("ssl.bootstrap.servers")
        self.ssl_ca_location = props.get("ssl.ca.location")
        self.env["STRATA_BOOTSTRAP_CONTROLLER"] = props["bootstrap.controllers"]

    def __exit__(self, kind, value, tb):
        signal.alarm(0)
        if kind is not None:
            self.failures.append(f"{kind.__name__}: {value}")
            print(f"FAILED: {kind.__name__}: {value}", file=sys.stderr, flush=True)
            if not isinstance(value, (TestFailed, Budget)):
                import traceback
                traceback.print_exception(kind, value, tb)
        # Shutting down must not be cut short by another signal.
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        try:
            for node in self.nodes():
                pid = self.pid(node)
                if pid:
                    try:
                        os.kill(pid, signal.SIGCONT)  # a paused node cannot shut down
                    except ProcessLookupError:
                        pass
            if self.failures:
                for node in self.nodes():
                    path = os.path.join(self.dir, f"node-{node}", "server.log")
                    print(f"--- {path} (tail)", file=sys.stderr)
                    try:
                        with open(path, errors="replace") as f:
                            lines = f.readlines()
                    except OSError as e:
                        print(e, file=sys.stderr)
                        continue
                    # Why a node died (an abseil RAW line, a failed check, a sanitizer
                    # report) may lie before the tail: its first 40 lines come first.
                    fatal = next((i for i, line in enumerate(lines) if FATAL_MARKERS.search(line)), None)
                    tail_from = max(0, len(lines) - 25)
                    if fatal is not None and fatal < tail_from:
                        print("".join(lines[fatal:min(fatal + 40, tail_from)]), file=sys.stderr, end="")
                        print("[...]", file=sys.stderr)
                    print("".join(lines[tail_from:]), file=sys.stderr, end="")
            try:
                subprocess.run([self.script, "down", "--dir", self.dir], env=self.env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=120)
            finally:
                self.after_down()
        finally:
            if os.environ.get("STRATA_KEEP_TEST_DIR"):
                log(f"kept {self.dir}")
            else:
                shutil.rmtree(self.dir, ignore_errors=True)
        if self.failures:
            print(f"{self.name}: {len(self.failures)} failure(s) in {self.elapsed():.1f} s", file=sys.stderr)
        else:
            print(f"{self.name}: passed in {self.elapsed():.1f} s", file=sys.stderr)
        return True  # the failure is recorded; exit_code() reports it

    def exit_code(self):
        return 1 if self.failures else 0

    def elapsed(self):
        return time.monotonic() - self.started

    # ---- checks --------------------------------------------------------------------
    def check(self, ok, what):
        if not ok:
            self.failures.append(what)
            print("FAILED:", what, file=sys.stderr, flush=True)
        return ok

    def require(self, ok, what):
        if not ok:
            raise TestFailed(what)

    def wait_for(self, what, condition, timeout, state=None):
        """Polls condition() until it returns a true value (returned); fails the test at the
        deadline. state() describes what is awaited: logged every 5 s and at the deadline."""
        started = time.monotonic()
        deadline = started + timeout
        next_report = started + 5
        last_error = None
        while True:
            if state is not None and time.monotonic() >= next_report:
                next_report += 5
                log(f"still waiting for {what} after {time.monotonic() - started:.0f} s: {self.describe_state(state)}")
            try:
                result = condition()
                if result:
                    return result
            except (subprocess.CalledProcessError, json.JSONDecodeError, KeyError, IndexError) as e:
                last_error = e  # a CLI call refused while the cluster changes: poll again
            if time.monotonic() >= deadline:
                raise TestFailed(f"not within {timeout} s: {what}" + (f" (last error: {last_error})" if last_error else "") +
                                 (f"; {self.describe_state(state)}" if state is not None else ""))
            time.sleep(0.05)  # polling a condition with a deadline

    def describe_state(self, state):
        try:
            return state()
        except Exception as e:  # describing must not fail the wait itself
            return f"(cannot describe: {e})"

    def cluster_state(self, topic):
        """The brokers (epoch, fenced) and topic's partitions (leader, epoch, ISR), for messages."""
        brokers = self.strata("cluster", "describe")["brokers"]
        parts = self.partitions(topic)
        return ("brokers " + ", ".join(f"{b['id']}(epoch {b['epoch']}{', fenced' if b['fenced'] else ''})"
                                       for b in brokers) +
                "; partitions " + ", ".join(f"{p['partition']}: leader {p['leader']} epoch {p['leader_epoch']} "
                                            f"isr {p['isr']}" for p in parts))

    # ---- nodes ---------------------------------------------------------------------
    def cluster(self, *args):
        subprocess.run([self.script, *args, "--dir", self.dir], env=dict(self.env, **self.node_env), check=True,
                       stdout=subprocess.DEVNULL, timeout=120)

    def nodes(self):
        return list(range(1, self.controllers + 1)) + self.brokers + self.added_controllers

    def add_controller(self, node):
        """A new controller of a dynamic quorum (strata-cluster add-controller: formatted
        with --no-initial-controllers and started, not a voter yet); the strata CLI is
        pointed at every controller so far. Returns its directory id."""
        out = subprocess.run([self.script, "add-controller", "--dir", self.dir, str(node)],
                             env=dict(self.env, **self.node_env), check=True, capture_output=True, text=True,
                             timeout=120)
        self.added_controllers.append(node)
        with open(os.path.join(self.dir, "voters")) as f:
            self.env["STRATA_BOOTSTRAP_CONTROLLER"] = f.read().strip()
        log(f"added controller {node}")
        return out.stdout.strip().split()[-1]

    def pid(self, node):
        try:
            with open(os.path.join(self.dir, f"node-{node}", "pid")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def running(self, node):
        """The node's process exists and has not exited (a zombie has: as strata-cluster's
        own check; init may reap it seconds later)."""
        pid = self.pid(node)
        return pid is not None and not self.exited(pid)

    @staticmethod
    def exited(pid):
        """The process is gone or a zombie: its sockets and files are closed."""
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            return True

    def note_stop(self, node):
        """Remembers the registration a broker stops with (settled() waits for a new one)."""
        epoch = self.broker_epochs().get(node)
        if epoch is not None:
            self.stopped_epochs[node] = epoch

    def kill9(self, node):
        pid = self.pid(node)
        if node in self.brokers:
            self.note_stop(node)
        self.cluster("kill", str(node))
        log(f"kill -9 broker {node}")
        if pid is not None:
            self.wait_for(f"broker {node} (pid {pid}) to die", lambda: self.exited(pid), 10)

    def start(self, node):
        self.cluster("start", str(node))
        log(f"started broker {node}")

    def signal(self, node, sig):
        os.kill(self.pid(node), sig)
        log(f"{signal.Signals(sig).name} to node {node}")

    def address(self, broker):
        """The broker's Kafka listener, host:port (a bootstrap that avoids paused brokers)."""
        with open(os.path.join(self.dir, f"node-{broker}", "server.properties")) as f:
            for line in f:
                if line.startswith("listeners="):
                    return line.strip().split("://", 1)[1].split(",")[0]
        raise TestFailed(f"broker {broker} has no listeners line")

    def scrape(self, node):
        """{sample (name with labels): value} of a node's /metrics."""
        with open(os.path.join(self.dir, f"node-{node}", "server.properties")) as f:
            address = next(line.split("=", 1)[1].strip() for line in f if line.startswith("metrics.listener="))
        with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as r:
            text = r.read().decode()
        out = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                out[name] = float(value)
        return out

    def server_log(self, node):
        with open(os.path.join(self.dir, f"node-{node}", "server.log"), errors="replace") as f:
            return f.read()

    # ---- the strata CLI ------------------------------------------------------------
    def strata(self, *args):
        out = subprocess.run([os.path.join(self.bin_dir, "strata"), *args, "-o", "json"], env=self.env, check=True,
                             capture_output=True, text=True, timeout=30)
        return json.loads(out.stdout)

    def create_topic(self, name, partitions, replication_factor, configs=None):
        args = ["topics", "create", name, "--partitions", str(partitions), "--replication-factor",
                str(replication_factor)]
        for key, value in (configs or {}).items():
            args += ["--config", f"{key}={value}"]
        subprocess.run([os.path.join(self.bin_dir, "strata"), *args], env=self.env, check=True,
                       stdout=subprocess.DEVNULL, timeout=30)
        # Every replica hosts its partition and every leader is known before producing.
        self.wait_for(f"{name}'s partitions have leaders and full ISRs",
                      lambda: all(p["leader"] >= 0 and sorted(p["isr"]) == sorted(p["replicas"])
                                  for p in self.partitions(name)), 30)

    def partitions(self, topic):
        """[{partition, leader, leader_epoch, replicas, isr, offline_replicas}] from the controller."""
        return sorted(self.strata("topics", "describe", topic)[0]["partitions"], key=lambda p: p["partition"])

    def partition(self, topic, index):
        return self.partitions(topic)[index]

    def broker_state(self, broker):
        for b in self.strata("cluster", "describe")["brokers"]:
            if b["id"] == broker:
                return b
        return None

    def broker_epochs(self):
        """{broker id: epoch of its current registration} (a restarted broker registers anew)."""
        return {b["id"]: b["epoch"] for b in self.strata("cluster", "describe")["brokers"]}

    def settled(self, topic):
        """Every broker registered — anew when it was stopped since (the controller has seen
        the restart, not only the old incarnation, whose session may still run out) —
        unfenced, and every ISR of topic full."""
        brokers = {b["id"]: b for b in self.strata("cluster", "describe")["brokers"]}
        for broker in self.brokers:
            b = brokers.get(broker)
            if b is None or b["fenced"] or b["in_controlled_shutdown"]:
                return False
            if self.stopped_epochs.get(broker) == b["epoch"]:
                return False
        if not self.isr_full(topic):
            return False
        self.stopped_epochs.clear()
        return True

    def isr_full(self, topic):
        return all(p["leader"] >= 0 and sorted(p["isr"]) == sorted(p["replicas"]) for p in self.partitions(topic))

    # ---- replica files -------------------------------------------------------------
    def log_dir_paths(self, node):
        """The node's log.dirs, as strata-cluster lays them out."""
        base = os.path.join(self.dir, f"node-{node}")
        if self.log_dirs == 1:
            return [os.path.join(base, "logs")]
        return [os.path.join(base, f"logs-{n}") for n in range(1, self.log_dirs + 1)]

    def partition_dir(self, node, topic, index):
        """The replica's directory in whichever of the node's log dirs holds it."""
        dirs = [os.path.join(d, f"{topic}-{index}") for d in self.log_dir_paths(node)]
        return next((d for d in dirs if os.path.isdir(d)), dirs[0])

    def segments(self, node, topic, index):
        d = self.partition_dir(node, topic, index)
        return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".log"))

    def dump(self, node, topic, index, records=False):
        """The JSON lines strata-storage dump prints for the replica's segments, in order."""
        files = self.segments(node, topic, index)
        if not files:
            return []
        args = [os.path.join(self.bin_dir, "strata-storage"), "dump", "--output", "json"]
        if records:
            args += ["--records", "--max-bytes", "1000"]
        out = subprocess.run(args + files, capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise TestFailed(f"strata-storage dump of broker {node}'s {topic}-{index} exited {out.returncode}: "
                             f"{(out.stdout + out.stderr)[-500:]}")
        return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]

    def batches(self, node, topic, index):
        return [e for e in self.dump(node, topic, index) if e["type"] == "batch"]

    def records(self, node, topic, index):
        """[(offset, value)] of the replica's data records (uncompressed batches)."""
        return [(e["offset"], e["value"]) for e in self.dump(node, topic, index, records=True) if e["type"] == "record"]

    def epochs(self, node, topic, index):
        """The replica's leader-epoch-checkpoint: [(epoch, start offset)]; [] when there is no
        checkpoint file. A dump that fails ends the test (TestFailed)."""
        path = os.path.join(self.partition_dir(node, topic, index), "leader-epoch-checkpoint")
        if not os.path.exists(path):
            return []
        out = subprocess.run([os.path.join(self.bin_dir, "strata-storage"), "dump", "--output", "json", path],
                             capture_output=True, text=True, timeout=30)
        if out.returncode != 0:
            # Not an empty cache: a check on the epochs must not pass on a dump that failed.
            raise TestFailed(f"strata-storage dump of broker {node}'s {topic}-{index} leader-epoch-checkpoint exited "
                             f"{out.returncode}: {(out.stdout + out.stderr)[-500:]}")
        entries = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        return [(e["epoch"], e["startOffset"]) for e in entries if "epoch" in e]

    def checkpoint(self, node, name):
        """{(topic, partition): offset} of one of node's log dir checkpoints (name:
        replication-offset-checkpoint for high watermarks, recovery-point-offset-checkpoint,
        log-start-offset-checkpoint); {} when the broker has not written it yet."""
        path = os.path.join(self.dir, f"node-{node}", "logs", name)
        if not os.path.exists(path):
            return {}
        out = subprocess.run([os.path.join(self.bin_dir, "strata-storage"), "dump", "--output", "json", path],
                             capture_output=True, text=True, timeout=30)
        if out.returncode != 0:
            raise TestFailed(f"strata-storage dump of broker {node}'s {name} exited {out.returncode}: "
                             f"{(out.stdout + out.stderr)[-500:]}")
        entries = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        return {(e["topic"], e["partition"]): e["offset"] for e in entries if e.get("type") == "entry"}

    def wait_empty_epoch_dropped(self, node, leader, topic, index, epoch, timeout):
        """Waits until node's leader-epoch-checkpoint no longer names `epoch` (one it led
        without appending) and equals the leader's (whose log never had that epoch)."""
        self.wait_for(f"broker {node} to drop its entry for epoch {epoch}, in which it appended nothing, and hold "
                      f"the leader's epochs",
                      lambda: (lambda mine: mine and epoch not in [e for e, _ in mine] and
                               mine == self.epochs(leader, topic, index))(self.epochs(node, topic, index)), timeout,
                      lambda: f"its epochs {self.epochs(node, topic, index)}, "
                              f"the leader {leader}'s {self.epochs(leader, topic, index)}")

    def log_end(self, node, topic, index):
        b = self.batches(node, topic, index)
        return b[-1]["lastOffset"] + 1 if b else 0

    def log_bytes(self, node, topic, index):
        data = b""
        for path in self.segments(node, topic, index):
            with open(path, "rb") as f:
                data += f.read()
        return data

    def replicas_identical(self, topic, index, nodes):
        """True when the replicas' logs hold the same bytes; else a description of the first difference."""
        digests = {n: hashlib.md5(self.log_bytes(n, topic, index)).hexdigest() for n in nodes}
        return len(set(digests.values())) == 1

    def describe_difference(self, topic, index, nodes):
        lines = []
        for n in nodes:
            bs = self.batches(n, topic, index)
            end = bs[-1]["lastOffset"] + 1 if bs else 0
            data = self.log_bytes(n, topic, index)
            lines.append(f"broker {n}: {len(bs)} batches, log end {end}, {len(data)} bytes, "
                         f"md5 {hashlib.md5(data).hexdigest()}")
        first = {n: [(b["baseOffset"], b["lastOffset"], b["partitionLeaderEpoch"], b["crc"])
                     for b in self.batches(n, topic, index)] for n in nodes}
        ref = first[nodes[0]]
        for n in nodes[1:]:
            for i, (a, b) in enumerate(zip(ref, first[n])):
                if a != b:
                    lines.append(f"batch #{i}: broker {nodes[0]} has (base, last, epoch, crc) {a}, broker {n} {b}")
                    break
        return "; ".join(lines)


# ---- clients -----------------------------------------------------------------------
def write_fault_rules(path, rules):
    """Replaces the fault library's rules file (tests/fault_preload) with the rule lines:
    written beside it and renamed over it, so that a node re-reading it sees all or none."""
    with open(path + ".new", "w") as f:
        f.write("".join(rule + "\n" for rule in rules))
    os.rename(path + ".new", path)


def client_error_logger(name, errors):
    def on_error(err):
        # librdkafka reports brokers going away; those are what the tests do to it.
        if err.fatal() or err.code() not in (KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN):
            errors.append(f"{name}: {err}")
    return on_error


class NumberedProducer:
    """Sends values b"<tag>-<n>" (n = 0, 1, ...) to partition n % partitions from a thread, at
    most rate per second, and records each delivery report: acked {n: (partition, offset)}
    and failed {n: error}."""

    def __init__(self, bootstrap, topic, partitions, tag, config=None, rate=1000):
        self.topic = topic
        self.partitions = partitions
        self.tag = tag
        self.rate = rate
        self.client_errors = []
        self.producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "acks": "all",
                                  "message.timeout.ms": 60000, "log_level": 2,
                                  "error_cb": client_error_logger(tag, self.client_errors), **(config or {})})
        self.lock = threading.Lock()
        self.acked = {}
        self.acked_at = {}  # n -> time.monotonic() of its acknowledgement
        self.failed = {}
        self.sent = 0
        self.last_ack = None
        self.longest_stall = (0.0, None)  # (seconds without an acknowledgement, acked count then)
        self.stopping = threading.Event()
        self.thread = None
        self.fatal = None  # the client's fatal error, when it stopped on one

    def value(self, n):
        return f"{self.tag}-{n}".encode()

    def _report(self, n):
        def report(err, msg):
            with self.lock:
                if err is None:
                    self.acked[n] = (msg.partition(), msg.offset())
                    now = time.monotonic()
                    self.acked_at[n] = now
                    if self.last_ack is not None and now - self.last_ack > self.longest_stall[0]:
                        self.longest_stall = (now - self.last_ack, len(self.acked))
                    self.last_ack = now
                else:
                    self.failed[n] = err
        return report

    def _run(self):
        started = time.monotonic()
        try:
            while not self.stopping.is_set():
                due = int((time.monotonic() - started) * self.rate) + 1
                while self.sent < due and not self.stopping.is_set():
                    n = self.sent
                    try:
                        self.producer.produce(self.topic, value=self.value(n), partition=n % self.partitions,
                                              on_delivery=self._report(n))
                        self.sent += 1
                    except BufferError:
                        break
                self.producer.poll(0.01)
        except KafkaException as e:  # a fatal error (e.g. of the idempotent producer): no more sends
            self.fatal = str(e)
            log(f"{self.tag} producer stopped on a fatal error: {e}")

    def goes_on(self, cluster, what, records, timeout):
        """Waits for records more acknowledgements. A producer that librdkafka stopped on a
        fatal error (check_after_chaos judges it) acknowledges nothing more: then it returns."""
        if self.fatal is not None:
            return
        acked = self.acked_count()
        cluster.wait_for(what, lambda: self.fatal is not None or self.acked_count() >= acked + records, timeout)

    def acked_at_least(self, count):
        """acked_count() >= count; a fatal producer error fails the test at once."""
        if self.fatal:
            raise TestFailed(f"the {self.tag} producer failed: {self.fatal}")
        return self.acked_count() >= count

    def start(self):
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        return self

    def acked_count(self):
        with self.lock:
            return len(self.acked)

    def stop(self, flush_s=90):
        """Stops sending; waits for every delivery report. Returns the number still undelivered."""
        self.stopping.set()
        self.thread.join()
        try:
            left = self.producer.flush(flush_s)
        except KafkaException as e:
            self.fatal = self.fatal or str(e)
            left = len(self.producer)
        self.producer = None  # its connections close now, not when the brokers go
        return left

    def value_number(self, value):
        prefix = f"{self.tag}-"
        if not value.startswith(prefix) or not value[len(prefix):].isdigit():
            return None
        return int(value[len(prefix):])

    def number_in(self, partition):
        """value -> n for the values this producer sends to partition, else None."""
        def number_of(value):
            n = self.value_number(value)
            return n if n is not None and n % self.partitions == partition else None
        return number_of

    def acked_in(self, partition):
        with self.lock:
            return {n: o for n, (p, o) in self.acked.items() if p == partition}


def read_all(bootstrap, topic, partitions, timeout=60):
    """Consumes every partition from its beginning to its end: {p: [(offset, value str)]}."""
    errors = []
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "strata-replication-test-unused",
                         "enable.auto.commit": False, "enable.partition.eof": True,
                         "error_cb": client_error_logger("consumer", errors)})
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        got = {p: [] for p in range(partitions)}
        at_end = set()
        deadline = time.monotonic() + timeout
        while len(at_end) < partitions:
            if time.monotonic() > deadline:
                raise TestFailed(f"consuming {topic}: partitions {sorted(set(range(partitions)) - at_end)} "
                                 f"did not reach their end in {timeout} s")
            for msg in consumer.consume(1000, timeout=0.2):
                if msg.error() is None:
                    got[msg.partition()].append((msg.offset(), msg.value().decode()))
                    at_end.discard(msg.partition())
                elif msg.error().code() == KafkaError._PARTITION_EOF:
                    at_end.add(msg.partition())
                else:
                    errors.append(f"consume {topic}: {msg.error()}")
        return got, errors
    finally:
        consumer.close()


class TailingConsumer:
    """A confluent-kafka Consumer reading every partition from offset 0 in a thread, through
    whatever happens to the cluster: got {p: [(offset, value)]} and errors. With
    auto.offset.reset=error an out-of-range answer (a new leader's log ending below what
    was served) is an error, not a silent jump."""

    def __init__(self, bootstrap, topic, partitions):
        self.errors = []
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "strata-replication-test-unused",
                                  "enable.auto.commit": False, "auto.offset.reset": "error", "log_level": 2,
                                  "error_cb": client_error_logger("consumer", self.errors)})
        self.consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        self.lock = threading.Lock()
        self.got = {p: [] for p in range(partitions)}
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopping.is_set():
            for msg in self.consumer.consume(1000, timeout=0.1):
                if msg.error() is None:
                    with self.lock:
                        self.got[msg.partition()].append((msg.offset(), msg.value().decode()))
                elif msg.error().code() != KafkaError._PARTITION_EOF:
                    self.errors.append(f"consume: {msg.error()}")
        self.consumer.close()

    def count(self):
        with self.lock:
            return sum(len(v) for v in self.got.values())

    def stop(self):
        self.stopping.set()
        self.thread.join()


def check_sequence(cluster, what, records, number_of, acked=None):
    """Checks one partition's [(offset, value)]: number_of(value) gives each value's n (None:
    the value does not belong in this partition); no value twice; n increasing with the
    offset (production order); every n of acked ({n: offset, or None when unknown}) present,
    at its acknowledged offset. Returns {n: offset}."""
    seen = {}
    previous = None
    disorder = []
    for offset, value in records:
        n = number_of(value)
        if not cluster.check(n is not None, f"{what}: offset {offset} holds {value!r}, never produced there"):
            continue
        cluster.check(n not in seen, f"{what}: {value!r} at offsets {seen.get(n)} and {offset}")
        seen.setdefault(n, offset)
        if previous is not None and n <= previous[1]:
            disorder.append((previous, (offset, n)))
        previous = (offset, n)
    cluster.check(not disorder, f"{what}: not in production order at ((offset, n), (next offset, n)) {disorder[:3]}")
    acked = acked or {}
    missing = sorted(n for n in acked if n not in seen)
    cluster.check(not missing, f"{what}: {len(missing)} acknowledged values missing, e.g. "
                               f"{[(n, acked[n]) for n in missing[:5]]} (n, acknowledged offset)")
    moved = sorted((n, acked[n], seen[n]) for n in acked if n in seen and acked[n] is not None and seen[n] != acked[n])
    cluster.check(not moved, f"{what}: {len(moved)} values not at their acknowledged offset, e.g. {moved[:5]} "
                             f"(n, acknowledged offset, offset)")
    return seen


def check_every_acknowledged(cluster, producer, topic, partitions):
    """Stops producer (every delivery report in) and checks no delivery failed, then reads
    topic back from the beginning: each acknowledged value once, at its offset, in
    production order (check_numbered)."""
    left = producer.stop()
    cluster.check(left == 0, f"{left} records had no delivery report")
    cluster.check(not producer.failed, f"{len(producer.failed)} deliveries failed, e.g. "
                                       f"{list(producer.failed.items())[:3]}")
    contents, errors = read_all(cluster.bootstrap, topic, partitions)
    cluster.check(not errors, f"consumer errors: {errors[:3]}")
    for p in range(partitions):
        check_numbered(cluster, f"{topic}-{p}", contents[p], producer, p)
    log(f"{producer.acked_count()} acknowledged records, every one in its partition once and in order")


def check_numbered(cluster, what, records, producer, partition):
    """check_sequence for one partition of a NumberedProducer's topic."""
    return check_sequence(cluster, what, records, producer.number_in(partition), producer.acked_in(partition))


def check_after_chaos(cluster, topic, partitions, producer, tailing, stall_s):
    """What a chaos test asserts once its rounds are over (replication_chaos_test.py's
    docstring says why each holds): stops producer (every delivery report in), then checks
    no acknowledgement stall of stall_s or more and no client error; with every ISR full,
    every replica's log holds the same bytes and each acknowledged value once at its offset
    in production order (check_numbered), as does a consumer reading from the beginning
    (offsets without gaps); no delivery failure, unless librdkafka 2.0 stopped the
    producer on a right OUT_OF_ORDER_SEQUENCE_NUMBER (out_of_order_was_right); and what
    tailing (a TailingConsumer) was served through the chaos is in the final log at the
    same offsets. Returns {partition: [(offset, value)]} as consumed at the end."""
    left = producer.stop()
    cluster.check(left == 0, f"{left} records still undelivered after 90 s")
    with producer.lock:
        failed = dict(producer.failed)
        acked_count = len(producer.acked)
    log(f"{producer.sent} sent, {acked_count} acknowledged, {len(failed)} failed")
    stall, at = producer.longest_stall
    log(f"longest time without an acknowledgement: {stall:.1f} s (at {at} acknowledged)")
    cluster.check(stall < stall_s, f"no acknowledgement for {stall:.1f} s (at {at} acknowledged)")
    cluster.check(not producer.client_errors, f"producer errors: {producer.client_errors[:5]}")

    # Every replica holds the same log once the ISRs are full and the log ends agree.
    cluster.wait_for("full ISRs", lambda: cluster.settled(topic), 60)
    if producer.fatal is None:
        cluster.check(not failed, f"{len(failed)} delivery failures, e.g. {sorted(failed.items())[:5]}")
    else:
        # librdkafka 2.0 may stop an idempotent producer on a right OUT_OF_ORDER_SEQUENCE_NUMBER
        # (out_of_order_was_right says when). Then the later rounds ran without new
        # records: what was acknowledged is checked below, what failed with the producer
        # may be there once.
        if cluster.check(*out_of_order_was_right(cluster, topic, producer.fatal)):
            log("note: the producer stopped on librdkafka's sequence desynchronization; the rounds went on without it")
        unexplained = {n: e for n, e in failed.items()
                       if e.code() not in FAILED_WITH_THE_PRODUCER}
        cluster.check(not unexplained, f"{len(unexplained)} delivery failures, e.g. {sorted(unexplained.items())[:5]}")
    for p in cluster.partitions(topic):
        index, replicas, leader = p["partition"], p["replicas"], p["leader"]
        cluster.wait_for(f"{topic}-{index}: every replica's log end at the leader's",
                         lambda: len({cluster.log_end(n, topic, index) for n in replicas}) == 1, 30)
        if not cluster.check(cluster.replicas_identical(topic, index, replicas),
                             f"{topic}-{index}: replicas differ: {cluster.describe_difference(topic, index, replicas)}"):
            continue
        for n in replicas:
            check_numbered(cluster, f"{topic}-{index} on broker {n}", cluster.records(n, topic, index), producer, index)
        log(f"{topic}-{index}: replicas {replicas} identical, {cluster.log_end(leader, topic, index)} records")

    consumed, errors = read_all(cluster.bootstrap, topic, partitions)
    cluster.check(not errors, f"consumer errors: {errors[:5]}")
    for index in range(partitions):
        check_numbered(cluster, f"{topic}-{index} as consumed", consumed[index], producer, index)
        offsets = [o for o, _ in consumed[index]]
        cluster.check(offsets == list(range(len(offsets))),
                      f"{topic}-{index}: consumed offsets are not 0..{len(offsets) - 1}")

    # What the consumer tailing through the chaos was served is in the final log, at the
    # same offsets: no record was served (below a high watermark) and then lost.
    total = sum(len(v) for v in consumed.values())
    cluster.wait_for(f"the tailing consumer to reach all {total} records", lambda: tailing.count() >= total, 30)
    tailing.stop()
    cluster.check(not tailing.errors, f"tailing consumer errors: {tailing.errors[:5]}")
    for index in range(partitions):
        final = dict(consumed[index])
        served = tailing.got[index]
        lost = [(o, v, final.get(o)) for o, v in served if final.get(o) != v]
        cluster.check(not lost, f"{topic}-{index}: {len(lost)} records served during the chaos are not in the final "
                                f"log at their offset, e.g. {lost[:3]} (offset, served, final)")
        cluster.check([o for o, _ in served] == list(range(len(served))),
                      f"{topic}-{index}: the tailing consumer's offsets are not 0..{len(served) - 1}")
    return consumed


def produce_values(bootstrap, topic, partition, values, config=None, timeout=60):
    """Sends values to one partition and waits for every delivery report:
    [(value, offset or None, KafkaError or None)] in the order sent."""
    errors = []
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "log_level": 2,
                         "error_cb": client_error_logger("producer", errors), **(config or {})})
    reports = [None] * len(values)

    def report(i):
        def on_delivery(err, msg):
            reports[i] = (values[i], msg.offset() if err is None else None, err)
        return on_delivery

    for i, value in enumerate(values):
        producer.produce(topic, value=value.encode(), partition=partition, on_delivery=report(i))
    left = producer.flush(timeout)
    if left:
        raise TestFailed(f"{left} of {len(values)} records to {topic}-{partition} had no delivery report in {timeout} s")
    return reports


# The delivery errors of a producer that librdkafka stopped on a fatal error (see
# out_of_order_was_right): the error itself, and the purge of the records it still had
# queued or in flight (never acknowledged, so they may be in the log once or not at all).
FAILED_WITH_THE_PRODUCER = (KafkaError._FATAL, KafkaError.OUT_OF_ORDER_SEQUENCE_NUMBER, KafkaError._PURGE_QUEUE,
                            KafkaError._PURGE_INFLIGHT)


def out_of_order_was_right(cluster, topic, fatal):
    """(ok, what) for librdkafka's fatal OUT_OF_ORDER_SEQUENCE_NUMBER ("sequence
    desynchronization" or "rewound sequence number"): ok when the broker that answered it
    held batches of that producer whose sequence does not continue at the rejected base
    sequence, so that the answer was right. librdkafka 2.0 then stops the producer: it had
    counted an earlier possibly-persisted batch as written (librdkafka PR 4438, fixed in
    2.3) or batched a retry anew (issue 3584); Kafka answers the same.
    The broker logs each refusal with the last sequence its producer state held and its
    log end offset then (ReplicaManager::AppendRecords). Its log may have been truncated
    since (a deposed leader's is), so the final log is only asked what lies below that
    log end offset and is still there: the last batch of the producer there must end at
    the sequence the broker named (its producer state matched its log)."""
    m = re.search(r"\[(\d+)\] with \d+ message\(s\).*broker (\d+) \(PID\{Id:(\d+),Epoch:(\d+)\}, base seq (\d+)",
                  fatal or "")
    if not m:
        return False, f"the producer failed: {fatal}"
    index, broker, pid, epoch, seq = (int(g) for g in m.groups())
    said = re.findall(rf"{re.escape(topic)}-{index} refused a produce in leader epoch (\d+) at log end offset (\d+): "
                      rf"producer {pid} epoch {epoch} sent sequence {seq} after (-?\d+)", cluster.server_log(broker))
    if not said:
        return False, (f"broker {broker} refused sequence {seq} of producer {pid} on {topic}-{index} (the producer's "
                       f"error: {fatal}) but logged no refusal")
    leader_epoch, log_end, last = (int(g) for g in said[-1])
    mine = [b for b in cluster.batches(broker, topic, index)
            if b["producerId"] == pid and b["producerEpoch"] == epoch and b["lastOffset"] < log_end]
    held = mine[-1]["lastSequence"] if mine else None
    near = [(b["baseOffset"], b["baseSequence"], b["lastSequence"], b["partitionLeaderEpoch"]) for b in mine[-5:]]
    log(f"{topic}-{index} on broker {broker}: refused sequence {seq} in leader epoch {leader_epoch} at log end offset "
        f"{log_end}, its last sequence being {last}; the last batches of producer {pid} below that offset in its "
        f"final log (offset, first seq, last seq, leader epoch): {near}")
    ok = last != seq - 1 and held == last
    return ok, (f"broker {broker} refused sequence {seq} of producer {pid} on {topic}-{index} as out of order after "
                f"{last}, its final log's last sequence of that producer below offset {log_end} being {held}: "
                f"{'right' if ok else 'wrong'}; the producer's error: {fatal}")


def seeded_random(name):
    seed = int(os.environ.get("STRATA_TEST_SEED", random.randrange(1 << 30)))
    log(f"{name}: seed={seed} (STRATA_TEST_SEED={seed} repeats the random choices)")
    return random.Random(seed)
