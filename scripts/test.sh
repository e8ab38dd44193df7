#!/usr/bin/env bash
# Installs dependencies and the test oracles (scripts/install-test-oracles.sh), builds dtrain and
# its tests, runs every test with ctest; then builds again without MPI (build-nompi/,
# -DDTRAIN_WITH_MPI=OFF) and runs the tests that need no cluster there (those that start MPI ranks
# skip themselves; the in-process data-parallel tests and LeNet's training run); then the fuzz
# targets for FUZZ_SECONDS (default 30) each.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/install-test-oracles.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
# The build without MPI: one process only, as a machine without Open MPI gets it.
cmake -S . -B build-nompi -G Ninja -DCMAKE_BUILD_TYPE=Release -DDTRAIN_WITH_MPI=OFF \
  -DDTRAIN_PYTHON=OFF >/dev/null
cmake --build build-nompi -j "$(nproc)" --target dtrain dtrain_tests
ctest --test-dir build-nompi --output-on-failure -j "$(nproc)" -E '^MultiHost' "$@"
# The parsers of what network peers and the environment send, under libFuzzer with ASan/UBSan
# (scripts/fuzz.sh).
FUZZ_SECONDS=${FUZZ_SECONDS:-30} bash scripts/fuzz.sh
