#!/usr/bin/env bash
# Lists the seeds of the replication simulation that fail, one line each with the
# violation, running each seed in a process of its own (so that one failure does not
# stop the rest): how the break checks of docs/ and broker/replication/README.md were
# counted. Not run by ctest.
# usage: bash tests/broker/replication_sim_seeds.sh [FIRST [COUNT [BUILD_DIR]]]
set -u
first=${1:-1}; count=${2:-1000}; build=${3:-build}
bin=$build/tests/broker/replication_sim_tests
[[ -x $bin ]] || { echo "no $bin: bash scripts/build.sh $build release replication_sim_tests" >&2; exit 2; }
failed=0
for ((s = first; s < first + count; s++)); do
  out=$(STRATA_REPLICATION_SEED=$s timeout 120 "$bin" 2>&1)
  if ! grep -q "\[  PASSED  \] 1 test" <<<"$out"; then
    echo "$(grep -m1 -E '^seed [0-9]+' <<<"$out" | cut -c1-240)"
    failed=$((failed + 1))
  fi
done
echo "$failed of $count seeds from $first failed" >&2
