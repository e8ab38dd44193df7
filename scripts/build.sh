#!/usr/bin/env bash
# Configures and builds dtrain (Release) into build/.
#   bash scripts/build.sh [--target NAME]... [CMAKE_CONFIGURE_ARGS...]
# Without --target everything is built (the test suite and the benchmarks too); the README's main
# command builds only `--target dtrain`, what training needs. Other arguments go to cmake's
# configure step (e.g. -DDTRAIN_BUILD_TESTS=OFF).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
configure=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) targets+=(--target "$2"); shift 2 ;;
    *) configure+=("$1"); shift ;;
  esac
done
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${configure[@]}" >/dev/null
cmake --build build -j "$(nproc)" "${targets[@]}"
