#!/usr/bin/env bash
# Configures and builds one build tree. Usage: scripts/build.sh DIR [release|asan] [targets...]
# release: -O2 with NDEBUG (gcc); asan: clang Debug with AddressSanitizer and UBSan
# (clang also checks the lock annotations, -Werror=thread-safety); fuzz: clang with
# libFuzzer coverage and ASan (build the fuzz targets only).
set -euo pipefail
dir=${1:?build dir}
kind=${2:-release}
shift 2 || shift $#
root=$(cd "$(dirname "$0")/.." && pwd)
# ccache's settings (keyed on paths relative to the checkout, so that CI's fresh clone
# reuses the objects of another) are the top CMakeLists.txt's, for every compile.
case "$kind" in
  release) flags=(-DCMAKE_BUILD_TYPE=Release -DSTRATA_SANITIZE=OFF) ;;
  asan) flags=(-DCMAKE_BUILD_TYPE=Debug -DSTRATA_SANITIZE=ON -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++) ;;
  fuzz) flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRATA_FUZZ=ON -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++) ;;
  *) echo "unknown build kind $kind" >&2; exit 2 ;;
esac
cmake -S "$root" -B "$dir" -G Ninja "${flags[@]}" > "$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$dir" -j2 "${targets[@]}"
