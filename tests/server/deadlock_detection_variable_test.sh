#!/usr/bin/env bash
# strata-server reads STRATA_MUTEX_DEADLOCK_DETECTION before anything else: a value
# other than abort, report or off stops it with exit code 1 (a configuration error) and
# a line naming the variable and the value (base/deadlock_detection.h).
set -uo pipefail
server=${1:?usage: deadlock_detection_variable_test.sh STRATA_SERVER}
out=$(STRATA_MUTEX_DEADLOCK_DETECTION=on "$server" --config /nonexistent/server.properties 2>&1)
rc=$?
expected="strata-server: STRATA_MUTEX_DEADLOCK_DETECTION='on' is not one of abort, report, off"
if [ "$rc" -ne 1 ] || [ "$out" != "$expected" ]; then
  echo "FAILED: exit $rc, printed: $out (expected exit 1 and: $expected)"
  exit 1
fi
# A valid value goes on to the configuration (which does not exist here).
out=$(STRATA_MUTEX_DEADLOCK_DETECTION=report "$server" --config /nonexistent/server.properties 2>&1)
rc=$?
if [ "$rc" -ne 1 ] || [[ "$out" == *STRATA_MUTEX_DEADLOCK_DETECTION* ]] || [[ "$out" != *nonexistent* ]]; then
  echo "FAILED: with report: exit $rc, printed: $out (expected the missing configuration file)"
  exit 1
fi
echo "passed"
