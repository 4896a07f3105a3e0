#!/usr/bin/env bash
# The README's test command and what CI runs: installs dependencies, builds, and runs
# the test suite. Unit and fault tests run twice: under ASan+UBSan (Debug), then with every
# other label but `slow` in the Release build. ctest's summary is the last line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh

echo "== ASan/UBSan build: unit and fault tests"
bash scripts/build.sh build-asan asan
# The seeded simulations run fewer seeds here (ASan is ~30x slower); Release runs them all.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 STRATA_RAFT_SEEDS=150 \
   ctest -L "unit|fault" --output-on-failure -j2 --timeout 900)

echo "== Release build: unit, integration, compat, fault tests"
bash scripts/build.sh build release
cd build
ctest -LE slow --output-on-failure -j2 --timeout 900
