#!/usr/bin/env bash
# Installs dependencies, builds dtrain and its tests, runs every test with ctest, then the fuzz
# targets for FUZZ_SECONDS (default 30) each.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
# The parsers of what network peers and the environment send, under libFuzzer with ASan/UBSan
# (scripts/fuzz.sh).
FUZZ_SECONDS=${FUZZ_SECONDS:-30} bash scripts/fuzz.sh
