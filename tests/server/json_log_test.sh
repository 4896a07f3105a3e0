#!/usr/bin/env bash
# log.format=json end to end: a one-node cluster started with it writes a server log whose
# every line is one JSON object with time, level, node, logger, message and fields, and
# the node's start-up lines are among them.
# Usage: json_log_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-json-log-test.XXXXXX")
trap '"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
"$CLUSTER" up --dir "$DIR" --combined 1 --override log.format=json >/dev/null
"$CLUSTER" down --dir "$DIR" >/dev/null
/usr/bin/python3 - "$DIR/node-1/server.log" <<'PY'
import json, sys
lines = open(sys.argv[1], errors="replace").read().splitlines()
bad, records = [], []
for i, line in enumerate(lines, 1):
    try:
        r = json.loads(line)
    except ValueError as e:
        bad.append(f"line {i} is not JSON ({e}): {line[:120]}")
        continue
    missing = {"time", "level", "node", "logger", "message", "fields"} - set(r)
    if missing or r["node"] != 1 or not r["time"].endswith("Z"):
        bad.append(f"line {i}: missing {sorted(missing)} or wrong node/time: {line[:120]}")
    records.append(r)
if not any("running as" in r.get("message", "") for r in records):
    bad.append("no start-up line ('node 1 of cluster ... running as') among the JSON lines")
for b in bad[:10]:
    print("FAILED:", b, file=sys.stderr)
print(f"{len(records)} JSON log lines, {len(bad)} problems", file=sys.stderr)
sys.exit(1 if bad or not records else 0)
PY
