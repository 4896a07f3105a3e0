#!/usr/bin/python3
"""Checks the project's own #include structure; standard library only.

Usage: /usr/bin/python3 scripts/check_include_cycles.py [--root DIR]

Reads every .h and .cc under the product folders (base/ proto/ security/ client/ storage/ objectstore/ raft/
controller/ broker/ server/ tools/; folders named build* are skipped) and follows each
`#include "..."` that names a file of the project (includes are rooted at the
repository, as STYLE.md asks). Two checks, each printing every problem it finds:

1. Include cycles inside a module. A file and its header (x.h and x.cc) are one node,
   so `a.cc -> b.h` and `b.cc -> a.h` make a cycle a <-> b: the two units cannot be
   understood, tested or built apart. Every elementary cycle is printed with the
   includes that make it.

2. Layering between modules: a module may include only itself and the modules below it
   (ALLOWED, which mirrors what each library links in the CMakeLists):
   base <- proto <- storage <- raft <- controller <- broker <- server <- tools, with
   client (the Kafka protocol client) beside storage on proto, objectstore (the S3 remote
   tier) on storage, below broker, and security (identity
   and TLS, on base alone) below client, raft and everything above. The generated protobuf
   headers (`admin.pb.h`, ... from proto/*.proto) count as proto.

A module is a top-level folder, except that proto/, broker/ and tools/ are split by
subfolder, since each subfolder there is a library or a program of its own: proto/kafka
(the Kafka codec, layer "proto"), tools/cli, tools/perf and tools/storage (layer "tools";
they may not include each other, only server/ and below). Files directly in proto/ or
tools/ belong to "proto" and "tools". broker/ is split by concern, each subfolder a layer
of its own in a one-way order (ALLOWED: common <- network; common <- lifecycle <-
replication <- tiered; replication <- group <- transactions; group <- share; all of them <-
handlers), and no source file may sit directly in broker/.

Exit status: 0 when there is neither a cycle nor a layering violation, 1 otherwise
(2 for a usage error).
"""

import argparse
import os
import re
import sys

MODULE_DIRS = ["base", "proto", "security", "client", "storage", "objectstore", "raft", "controller", "broker", "server", "tools"]
SPLIT_BY_SUBFOLDER = {"proto", "tools", "broker"}

# The layer of each module, and which layers each layer may include (besides itself).
LAYER = {
    "proto/kafka": "proto",
    "tools/cli": "tools",
    "tools/perf": "tools",
    "tools/storage": "tools",
}
BELOW_BROKER = {"base", "proto", "security", "client", "storage", "objectstore", "raft", "controller"}
BROKER = ["broker/common", "broker/network", "broker/quota", "broker/lifecycle", "broker/replication", "broker/tiered",
          "broker/group", "broker/transactions", "broker/share", "broker/handlers"]
ALLOWED = {
    "base": set(),
    "proto": {"base"},
    "security": {"base"},
    "client": {"base", "proto", "security"},
    "storage": {"base", "proto"},
    # The remote tier on an object store: a RemoteStorageManager over storage's formats.
    "objectstore": {"base", "proto", "storage"},
    "raft": {"base", "proto", "security", "storage"},
    "controller": {"base", "proto", "security", "storage", "raft"},
    # broker/ by concern, one way: common <- network; common <- quota; common <- lifecycle <- replication
    # <- tiered; replication <- group; every one of them <- handlers.
    "broker/common": BELOW_BROKER,
    "broker/network": BELOW_BROKER | {"broker/common"},
    "broker/quota": BELOW_BROKER | {"broker/common"},
    "broker/lifecycle": BELOW_BROKER | {"broker/common"},
    "broker/replication": BELOW_BROKER | {"broker/common", "broker/lifecycle"},
    "broker/tiered": BELOW_BROKER | {"broker/common", "broker/lifecycle", "broker/replication"},
    "broker/group": BELOW_BROKER | {"broker/common", "broker/lifecycle", "broker/replication"},
    "broker/transactions": BELOW_BROKER | {"broker/common", "broker/lifecycle", "broker/replication", "broker/group"},
    # KIP-932 share partitions and the share coordinator: beside the groups they serve.
    "broker/share": BELOW_BROKER | {"broker/common", "broker/lifecycle", "broker/replication", "broker/group"},
    "broker/handlers": BELOW_BROKER | set(BROKER),
    "server": BELOW_BROKER | set(BROKER),
    "tools": BELOW_BROKER | set(BROKER) | {"server"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
GENERATED = re.compile(r"^(\w+)\.(?:grpc\.)?pb\.h$")


def module_of(path):
    """The module of a repository-relative path: its top folder, or top/sub for proto and tools."""
    parts = path.split("/")
    if parts[0] in SPLIT_BY_SUBFOLDER and len(parts) > 2:
        return parts[0] + "/" + parts[1]
    return parts[0]


def layer_of(module):
    return LAYER.get(module, module)


def node_of(path):
    """x.h and x.cc are one node: the path without its extension."""
    return os.path.splitext(path)[0]


def project_files(root):
    files = []
    for top in MODULE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("build") and not d.startswith("."))
            for name in sorted(filenames):
                if name.endswith((".h", ".cc")):
                    files.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return files


def read_includes(root, path):
    """(line number, included path) for each quoted include."""
    out = []
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                out.append((number, m.group(1)))
    return out


def resolve(root, path, included, generated_protos):
    """The repository path an include names, "proto" for a generated header, else None."""
    if os.path.isfile(os.path.join(root, included)):
        return os.path.normpath(included).replace(os.sep, "/")
    beside = os.path.normpath(os.path.join(os.path.dirname(path), included)).replace(os.sep, "/")
    if os.path.isfile(os.path.join(root, beside)):
        return beside
    m = GENERATED.match(os.path.basename(included))
    if m and m.group(1) in generated_protos:
        return "proto"
    return None  # a system or third-party header


def strongly_connected(graph):
    """Tarjan's algorithm, iterative; the components, each a sorted list."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def elementary_cycles(graph, component):
    """Every elementary cycle of one strongly connected component, each starting at its
    smallest node (so each is found once): a depth-first search from each start over the
    nodes after it."""
    cycles = []
    members = sorted(component)
    for i, start in enumerate(members):
        allowed = set(members[i:])
        path, on_path = [start], {start}

        def search(node):
            for succ in sorted(graph[node]):
                if succ == start:
                    cycles.append(list(path))
                elif succ in allowed and succ not in on_path:
                    path.append(succ)
                    on_path.add(succ)
                    search(succ)
                    path.pop()
                    on_path.discard(succ)

        search(start)
    return cycles


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    generated_protos = {
        os.path.splitext(n)[0] for n in os.listdir(os.path.join(root, "proto")) if n.endswith(".proto")
    }

    graph = {}  # node -> nodes of the same module it includes
    evidence = {}  # (node, node) -> the includes that make the edge
    violations = []
    files = project_files(root)
    for path in files:
        module = module_of(path)
        graph.setdefault(node_of(path), set())
        if layer_of(module) not in ALLOWED:
            violations.append(f"{path}: {module}/ holds no source file at its top; it belongs in one of "
                              f"its subfolders")
            continue
        for line, included in read_includes(root, path):
            target = resolve(root, path, included, generated_protos)
            if target is None:
                continue
            target_module = "proto" if target == "proto" else module_of(target)
            if target_module == module:
                a, b = node_of(path), node_of(target)
                if a != b:
                    graph[a].add(b)
                    graph.setdefault(b, set())
                    evidence.setdefault((a, b), []).append(f"{path}:{line} includes {target}")
                continue
            # Modules of one layer side by side (tools/cli and tools/perf; proto/kafka and
            # the generated protobuf headers) do not include each other.
            if layer_of(target_module) not in ALLOWED[layer_of(module)]:
                shown = target if target != "proto" else included + " (generated from proto/)"
                may = ", ".join(sorted(ALLOWED[layer_of(module)])) or "nothing else"
                violations.append(f"{path}:{line} includes {shown}: {module} (layer {layer_of(module)}) "
                                  f"may include only {may}")

    cycles = []
    for component in strongly_connected(graph):
        if len(component) > 1:
            cycles.extend(elementary_cycles(graph, component))

    for cycle in cycles:
        ring = cycle + [cycle[0]]
        print(f"include cycle in {module_of(cycle[0])}: " + " -> ".join(os.path.basename(n) for n in ring))
        for a, b in zip(ring, ring[1:]):
            for e in evidence[(a, b)]:
                print(f"    {e}")
    for v in violations:
        print(f"layering: {v}")
    modules = sorted({module_of(p) for p in files})
    print(f"check_include_cycles: {len(files)} files in {len(modules)} modules; "
          f"{len(cycles)} include cycle(s), {len(violations)} layering violation(s)")
    return 1 if cycles or violations else 0


if __name__ == "__main__":
    sys.exit(main())
