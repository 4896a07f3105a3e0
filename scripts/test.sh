#!/usr/bin/env bash
# The README's test command and what CI runs: installs dependencies, checks the include
# structure (scripts/check-structure.sh: an include cycle or a layering violation fails
# the run), builds, and runs the test suite. Unit and fault tests run twice: under
# ASan+UBSan in a clang Debug tree that also builds every program, so that clang checks
# the lock annotations (-Werror=thread-safety) of all the code in the same compile; then
# with every other label but `slow` and `deploy` in the Release build. Between them the
# libFuzzer targets (a clang tree of their own, building only them and the libraries
# they fuzz) run for a bounded time (STRATA_FUZZ_SECONDS, default 30 each; a crash fails
# the run). In the Release phase, before the main suite, the `deploy` test runs once and
# alone: it builds the Docker image of deploy/Dockerfile with the Release tree's programs
# (not compiling them again) and runs deploy/docker-compose.yml on a Docker engine it
# starts itself if none runs (tests/deploy/compose_test.sh). ctest's summary of the main
# suite comes last, then each phase's wall time. Every process the tests start checks lock order: absl's
# deadlock detection aborts a strata-server on a lock-order cycle
# (base/deadlock_detection.h).
set -euo pipefail
export STRATA_MUTEX_DEADLOCK_DETECTION=abort
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# Each phase's wall time, printed after the suite's summary (the end of the log is what
# CI shows), so that a slow run says where its time went.
phases=()
phase_start=$SECONDS
phase_name="install"
phase() {
  phases+=("$phase_name $((SECONDS - phase_start)) s")
  phase_start=$SECONDS
  phase_name=$1
  echo "== $2"
}
report() {
  phases+=("$phase_name $((SECONDS - phase_start)) s")
  local IFS=,
  echo "CI phases: ${phases[*]}; total $SECONDS s" | sed 's/,/, /g'
}
trap report EXIT
bash scripts/install-deps.sh
# The test peers (Kafka's jars, confluent-kafka from PyPI, franz-go): cached, pinned.
bash scripts/install-peers.sh

phase structure "Structure: include cycles and module layering"
bash scripts/check-structure.sh

phase asan-build "clang ASan/UBSan build: unit and fault tests, every program (-Werror=thread-safety checks the lock annotations)"
bash scripts/build.sh build-asan asan unit_fault_tests strata-server strata strata-perf strata-storage
phase asan-tests "clang ASan/UBSan: unit and fault tests"
# The seeded simulations run fewer seeds here (ASan is ~30x slower; what ASan adds is a
# memory error on a path, which a few dozen seeds walk); Release runs them all.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 STRATA_RAFT_SEEDS=50 STRATA_REPLICATION_SEEDS=40 \
   ctest -L "unit|fault" --output-on-failure -j2 --timeout 900)

phase fuzz-build "clang fuzz build: the fuzz targets and the libraries they fuzz"
bash scripts/build.sh build-fuzz fuzz kafka_request_fuzz record_batch_fuzz seed_corpus

phase fuzzing "Fuzzing: the Kafka request decoder and the record batch parser (${STRATA_FUZZ_SECONDS:-30} s each)"
seeds=$(mktemp -d)
mkdir -p "$seeds/kafka_request_fuzz" "$seeds/record_batch_fuzz"
build-fuzz/fuzz/seed_corpus "$seeds/kafka_request_fuzz" "$seeds/record_batch_fuzz"
for target in kafka_request_fuzz record_batch_fuzz; do
  ASAN_OPTIONS=detect_leaks=1 "build-fuzz/fuzz/$target" -max_total_time="${STRATA_FUZZ_SECONDS:-30}" \
    -rss_limit_mb=2048 -print_final_stats=1 "$seeds/$target" 2>&1 | tail -n 12
done
rm -rf "$seeds"

phase release-build "Release build: unit, integration, compat, fault tests"
bash scripts/build.sh build release
cd build

phase deploy "Deploy: the Docker image and docker-compose cluster of deploy/, alone (tests/deploy/)"
ctest -L deploy --output-on-failure

phase suite "The Release suite: every label but slow and deploy"
ctest -LE "slow|deploy" --output-on-failure -j2 --timeout 900
