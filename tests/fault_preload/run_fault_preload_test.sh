#!/usr/bin/env bash
# Runs a program with libstrata_fault_preload.so preloaded, STRATA_FAULT_RULES and
# STRATA_FAULT_LOG naming a rules file (not created) and a log in a fresh directory that
# is removed afterwards. Only the program gets LD_PRELOAD, not this script's helpers.
# Usage: run_fault_preload_test.sh LIBRARY PROGRAM [ARGS...]
set -euo pipefail
library=${1:?usage: run_fault_preload_test.sh LIBRARY PROGRAM [ARGS...]}
program=${2:?usage: run_fault_preload_test.sh LIBRARY PROGRAM [ARGS...]}
shift 2
dir=$(mktemp -d "${TMPDIR:-/tmp}/strata-fault-preload.XXXXXX")
trap 'rm -rf "$dir"' EXIT
rc=0
LD_PRELOAD=$library STRATA_FAULT_RULES=$dir/rules STRATA_FAULT_LOG=$dir/faults.log "$program" "$@" || rc=$?
if [[ $rc -ne 0 && -f $dir/faults.log ]]; then
  echo "--- $dir/faults.log:"
  cat "$dir/faults.log"
fi
exit $rc
