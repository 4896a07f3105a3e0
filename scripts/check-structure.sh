#!/usr/bin/env bash
# The project's structure checks, run by scripts/test.sh before any build and runnable
# alone: include cycles inside a module and includes against the module layering
# (scripts/check_include_cycles.py; scripts/README.md). Exits non-zero, having printed
# every problem, when either is found.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Debian's interpreter: the check needs only the standard library, and the pyenv python3
# on PATH here may not be there at all in CI.
python=/usr/bin/python3
[[ -x $python ]] || python=python3
"$python" "$root/scripts/check_include_cycles.py" --root "$root"
# No product file over 1,000 lines and no function over 150 (scripts/check_sizes.py).
"$python" "$root/scripts/check_sizes.py" --root "$root"
