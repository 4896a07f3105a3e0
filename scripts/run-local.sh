#!/usr/bin/env bash
# The README's main command: installs dependencies, builds, and runs the main job.
# Today the main job is the storage smoke run (append, read back, clean restart,
# figures); later issues turn it into starting a local cluster.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
bash scripts/build.sh build release strata-storage
data=${STRATA_DATA:-$root/data/smoke}
rm -rf "$data"
./build/tools/strata-storage smoke --dir "$data" "$@"
