#!/usr/bin/env bash
# Installs dependencies, builds dtrain and its tests, and runs every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
