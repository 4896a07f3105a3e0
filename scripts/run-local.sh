#!/usr/bin/env bash
# The README's main command: installs dependencies, builds, and starts a local cluster
# with tools/strata-cluster (3 controllers and 3 brokers on 127.0.0.1, data in
# data/local), creates a demo topic and shows the cluster. It keeps running; stop it
# with `tools/strata-cluster down --dir data/local`. Extra arguments go to
# `strata-cluster up` (e.g. --combined 1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
bash scripts/build.sh build release strata-server strata strata-storage strata-perf
export STRATA_BIN_DIR="$root/build/tools"
data=${STRATA_DATA:-$root/data/local}
tools/strata-cluster down --dir "$data" >/dev/null 2>&1 || true
rm -rf "$data"
if [[ $# -eq 0 ]]; then set -- --controllers 3 --brokers 3; fi
tools/strata-cluster up --dir "$data" "$@"
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$data/cluster.env")
build/tools/strata topics create demo --partitions 6 --replication-factor "$(build/tools/strata cluster describe -o json | jq '[.brokers | length, 3] | min')"
build/tools/strata cluster describe
build/tools/strata topics describe demo
echo
echo "The cluster runs in the background (logs in $data/node-*/server.log)."
echo "Kafka clients: $(grep '^bootstrap.servers=' "$data/cluster.env"), e.g."
echo "  kcat -b $(sed -n 's/^bootstrap.servers=//p' "$data/cluster.env") -L"
echo "  export STRATA_BOOTSTRAP_CONTROLLER=$STRATA_BOOTSTRAP_CONTROLLER"
echo "  build/tools/strata topics list"
echo "  tools/strata-cluster down --dir $data"
