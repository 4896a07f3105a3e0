"""Strata nodes each in a network namespace of its own, and network partitions between them.

Run by Debian's /usr/bin/python3, as root. A test does

    skip_unless_netns()                     # exits SKIP_CODE with "SKIPPED: ..." otherwise
    with NetnsCluster(sys.argv[1], sys.argv[2], "partition", overrides=...) as cluster:
        cluster.isolate(4); ...; cluster.heal()
    sys.exit(cluster.exit_code())

NetnsCluster is replication_harness.Cluster (tools/strata-cluster, the strata CLI, replica
files, waits with deadlines, log tails on failure, stopping on an exception, a signal or
the time budget) whose nodes run in network namespaces this run creates, all named
`strata-<pid>-<random>-<what>` so that parallel runs never share one:

    <prefix>-hub      the bridge br0 and one veth port per endpoint (p<id>, pclient); no address
    <prefix>-n<id>    node <id>: eth0 (10.77.0.<id>/24, the peer of p<id>) and lo; its
                      strata-server runs under `ip netns exec` (strata-cluster --netns)
    <prefix>-client   eth0 10.77.0.200/24: this process enters it (setns) before any node
                      starts, so the test's clients, the strata CLI and strata-cluster's own
                      readiness check all talk to the nodes from there

Every veth is created inside the hub and its node end moved to the node's namespace, so
nothing of a run is ever in the root namespace: no interface, route or address there is
touched, and each run's 10.77.0.0/24 lives on its own bridge.

A partition is a set of cut pairs of endpoints (node ids, or CLIENT). A cut pair (a, b)
is a blackhole route to b's /32 in a's namespace and one to a's in b's (`ip route add
blackhole`, no iptables or nft needed): packets either way are dropped by their sender's
stack. Established connections then go silent (retransmissions are dropped, as in a real
partition); a new connect() to a cut peer fails at once with EINVAL instead of timing out.
  * cut(a, b)               both directions between two endpoints
  * isolate(node)           node from every other node; clients still reach it unless
                            clients=True (a full isolation). A leader isolated from the
                            cluster but not from its clients is the case in which a stale
                            leader could acknowledge what it cannot replicate.
  * split(group_a, group_b) every pair across; CLIENT may be in either group, and when in
                            neither the clients reach both sides
  * heal() / heal(node)     every cut, or those of one endpoint
On exit (also on a failure, SIGTERM/SIGINT/SIGHUP or the time budget) the nodes are
stopped by Cluster, then every process still in one of the run's namespaces is killed
(found by namespace with `ip netns pids`, whatever its process group) and the
namespaces are deleted, which removes the veths and the bridge with them. A run killed
with SIGKILL cannot clean up: the next run deletes the namespaces of runs whose process
is gone (sweep_stale()), or run `/usr/bin/python3 netns_cluster.py --sweep`.
"""

import ctypes
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cluster"))

from replication_harness import Cluster, TestFailed, log  # noqa: E402

# ctest's SKIP_RETURN_CODE for these tests (tests/netns/CMakeLists.txt).
SKIP_CODE = 77
CLIENT = "client"
SUBNET = "10.77.0"
CLIENT_HOST = 200
NAME_PATTERN = re.compile(r"^strata-(\d+)-[0-9a-f]{6}-")
CLONE_NEWNET = 0x40000000


def ip(*args, stdin=None):
    """Runs one ip(8) command (or a -batch read from stdin); fails the test with its error."""
    out = subprocess.run(["ip", *args], input=stdin, capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise TestFailed(f"ip {' '.join(args)} exited {out.returncode}: {out.stderr.strip()}"
                         + (f" (input: {stdin.strip()!r})" if stdin else ""))
    return out.stdout


def netns_unavailable():
    """Why this host cannot run the tests (None when it can): root, ip, and a namespace
    holding a bridge and a veth pair."""
    if os.geteuid() != 0:
        return f"running as uid {os.geteuid()}"
    if shutil.which("ip") is None:
        return "no ip command (iproute2)"
    probe = f"strata-{os.getpid()}-{random.randrange(1 << 24):06x}-probe"
    try:
        ip("netns", "add", probe)
    except TestFailed as e:
        return str(e)
    try:
        ip("-n", probe, "link", "add", "br0", "type", "bridge")
        ip("-n", probe, "link", "add", "v0", "type", "veth", "peer", "name", "v1")
        return None
    except TestFailed as e:
        return str(e)
    finally:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=30)


def skip_unless_netns():
    why = netns_unavailable()
    if why is not None:
        print(f"SKIPPED: needs root and ip netns ({why})", flush=True)
        sys.exit(SKIP_CODE)


def _setns(path):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise TestFailed(f"setns({path}): {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)


def _kill_namespace_processes(namespace, deadline_s=10):
    """SIGKILLs every process in namespace but this one; waits until they are gone."""
    deadline = time.monotonic() + deadline_s
    while True:
        out = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True, timeout=30)
        pids = [int(p) for p in out.stdout.split() if p.isdigit() and int(p) != os.getpid()]
        if not pids or time.monotonic() > deadline:
            return pids
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)  # polling their exit, with the deadline above


def delete_namespaces(names):
    """Kills what runs in each namespace and deletes it; returns what could not be done."""
    problems = []
    for name in names:
        left = _kill_namespace_processes(name)
        if left:
            problems.append(f"processes {left} still in {name}")
        out = subprocess.run(["ip", "netns", "del", name], capture_output=True, text=True, timeout=30)
        if out.returncode != 0:
            problems.append(f"ip netns del {name}: {out.stderr.strip()}")
    return problems


def sweep_stale():
    """Deletes the namespaces of earlier runs whose process is gone (a run killed by SIGKILL)."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30)
    stale = []
    for line in out.stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        m = NAME_PATTERN.match(name)
        if m and not os.path.exists(f"/proc/{m.group(1)}"):
            stale.append(name)
    if stale:
        log(f"deleting {len(stale)} namespaces of runs that are gone: {' '.join(stale)}")
        for problem in delete_namespaces(stale):
            log(f"stale namespace not deleted: {problem}")
    return stale


class Network:
    """The run's namespaces (a hub with a bridge, one per endpoint) and the cuts between
    endpoints. Not thread-safe: the test's main thread drives it."""

    def __init__(self, nodes):
        self.prefix = f"strata-{os.getpid()}-{random.randrange(1 << 24):06x}"
        self.endpoints = list(nodes) + [CLIENT]
        self.created = []  # namespaces, in the order made
        self.cuts = set()  # frozenset({a, b})
        self.root_netns = None  # this thread's namespace before it entered the client's

    def namespace(self, endpoint):
        return f"{self.prefix}-{'client' if endpoint == CLIENT else f'n{endpoint}'}"

    def host(self, endpoint):
        return f"{SUBNET}.{CLIENT_HOST if endpoint == CLIENT else endpoint}"

    def create(self):
        hub = f"{self.prefix}-hub"
        self._add_namespace(hub)
        ip("-n", hub, "-batch", "-", stdin="link add br0 type bridge\nlink set br0 up\n")
        for endpoint in self.endpoints:
            ns = self.namespace(endpoint)
            self._add_namespace(ns)
            port, inner = f"p{endpoint}", f"n{endpoint}"
            ip("-n", hub, "-batch", "-", stdin=f"link add {inner} type veth peer name {port}\n"
                                               f"link set {inner} netns {ns}\n"
                                               f"link set {port} master br0 up\n")
            ip("-n", ns, "-batch", "-", stdin=f"link set {inner} name eth0\n"
                                              f"addr add {self.host(endpoint)}/24 dev eth0\n"
                                              "link set eth0 up\nlink set lo up\n")
        log(f"network namespaces {self.prefix}-{{hub,n<id>,client}}: nodes at {SUBNET}.<id>, "
            f"clients at {self.host(CLIENT)}")

    def _add_namespace(self, name):
        ip("netns", "add", name)
        self.created.append(name)

    def enter_client(self):
        """Moves this thread (the test's main thread, before it starts any other) into the
        client namespace: the processes and threads it starts from now on are there too."""
        self.root_netns = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        path = f"/run/netns/{self.namespace(CLIENT)}"
        _setns(path)
        if os.stat("/proc/thread-self/ns/net").st_ino != os.stat(path).st_ino:
            raise TestFailed(f"this thread is not in {path} after setns")

    def destroy(self):
        if self.root_netns is not None:
            # Back where it started, so that it never holds a namespace it deletes.
            if ctypes.CDLL(None, use_errno=True).setns(self.root_netns, CLONE_NEWNET) != 0:
                log(f"cannot return to the initial network namespace: {os.strerror(ctypes.get_errno())}")
            os.close(self.root_netns)
            self.root_netns = None
        problems = delete_namespaces(reversed(self.created))
        self.created = []
        self.cuts = set()
        for problem in problems:
            log(f"cleaning up the network: {problem}")
        return problems

    def set_cuts(self, wanted):
        """Makes the cut pairs exactly `wanted`: adds and deletes blackhole routes, both
        sides of each pair, one `ip -batch` per namespace."""
        commands = {}
        for verb, pairs in (("del", self.cuts - wanted), ("add", wanted - self.cuts)):
            for pair in pairs:
                a, b = sorted(pair, key=str)
                commands.setdefault(a, []).append(f"route {verb} blackhole {self.host(b)}/32")
                commands.setdefault(b, []).append(f"route {verb} blackhole {self.host(a)}/32")
        for endpoint, lines in commands.items():
            ip("-n", self.namespace(endpoint), "-batch", "-", stdin="\n".join(lines) + "\n")
        self.cuts = set(wanted)

    def routes(self, endpoint):
        """The addresses blackholed in the endpoint's namespace (a check that a heal healed)."""
        return [line.split()[1] for line in ip("-n", self.namespace(endpoint), "route", "show", "type", "blackhole")
                .splitlines() if line.strip()]


def _pair(a, b):
    if a == b:
        raise ValueError(f"cannot cut {a} from itself")
    return frozenset((a, b))


class NetnsCluster(Cluster):
    """A Cluster whose controllers, brokers and clients each live in a network namespace,
    with partitions between them (the module's docstring). Not thread-safe."""

    def __init__(self, bin_dir, cluster_script, name, overrides=None, budget_s=150, brokers=3, controllers=3):
        super().__init__(bin_dir, cluster_script, name, overrides, budget_s, brokers, controllers)
        self.network = None

    # ---- Cluster's hooks -----------------------------------------------------------
    def before_up(self):
        sweep_stale()
        self.network = Network(self.nodes())
        self.network.create()
        self.network.enter_client()
        args = []
        for node in self.nodes():
            args += ["--address", f"{node}={self.network.host(node)}",
                     "--netns", f"{node}={self.network.namespace(node)}"]
        return args

    def after_down(self):
        if self.network is not None:
            problems = self.network.destroy()
            self.check(not problems, f"the network was not cleaned up: {problems}")

    # ---- partitions ----------------------------------------------------------------
    def _endpoint(self, endpoint):
        if endpoint != CLIENT and endpoint not in self.nodes():
            raise ValueError(f"no node {endpoint}")
        return endpoint

    def _cut(self, pairs, what):
        self.network.set_cuts(self.network.cuts | set(pairs))
        log(f"network: {what}")

    def cut(self, a, b):
        """Cuts both directions between endpoints a and b (node ids or CLIENT)."""
        self._cut([_pair(self._endpoint(a), self._endpoint(b))], f"cut {a} <-> {b}")

    def isolate(self, node, clients=False):
        """Cuts node from every other node; from the clients too when clients=True."""
        others = [n for n in self.nodes() if n != self._endpoint(node)] + ([CLIENT] if clients else [])
        self._cut([_pair(node, o) for o in others],
                  f"isolated {self.role(node)} {node} from every other node, "
                  f"{'and from the clients' if clients else 'clients still reach it'}")

    def split(self, group_a, group_b):
        """Cuts every pair (a in group_a, b in group_b); endpoints in neither keep reaching both."""
        overlap = set(group_a) & set(group_b)
        if overlap:
            raise ValueError(f"{sorted(overlap, key=str)} on both sides of a split")
        self._cut([_pair(self._endpoint(a), self._endpoint(b)) for a in group_a for b in group_b],
                  f"split {sorted(group_a, key=str)} | {sorted(group_b, key=str)}")

    def heal(self, endpoint=None):
        """Removes every cut, or only endpoint's."""
        if endpoint is None:
            self.network.set_cuts(set())
            log("network: healed")
        else:
            self.network.set_cuts({p for p in self.network.cuts if self._endpoint(endpoint) not in p})
            log(f"network: healed {endpoint}")

    def setting(self, node, key):
        """The value of key in the node's server.properties (the last one: overrides come last)."""
        with open(os.path.join(self.dir, f"node-{node}", "server.properties")) as f:
            values = [line.split("=", 1)[1].strip() for line in f if line.split("=", 1)[0].strip() == key]
        if not values:
            raise TestFailed(f"node {node}'s server.properties has no {key}")
        return values[-1]

    def role(self, node):
        return "broker" if node in self.brokers else "controller"

    # ---- who leads -----------------------------------------------------------------
    def active_controller(self):
        """The active controller (the metadata quorum's leader) as the controllers report it."""
        return self.strata("cluster", "describe")["controller_id"]

    def leader(self, topic, index):
        return self.partition(topic, index)["leader"]

    def rebalance(self, topic, timeout=30):
        """Elects the preferred leaders (each partition's first replica) and waits until they lead."""
        self.wait_for(f"{topic}'s preferred leaders to lead",
                      lambda: self.strata("leaders", "elect", "--topic", topic) is not None and
                      all(p["leader"] == p["replicas"][0] for p in self.partitions(topic)), timeout,
                      lambda: self.cluster_state(topic))

    def healthy(self, topic):
        """A controller leads, every broker is registered and unfenced, every ISR of topic full."""
        return self.active_controller() in range(1, self.controllers + 1) and self.settled(topic)


if __name__ == "__main__" and sys.argv[1:] == ["--sweep"]:
    sys.exit(0 if sweep_stale() is not None else 1)
