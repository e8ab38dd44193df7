#!/usr/bin/env bash
# Installs what only the benchmarks in bench/ need, on top of the build and test packages (kept
# apart so that CI never pulls in PyTorch). Idempotent.
#   python3-torch  PyTorch 1.13 (CPU), the side-by-side comparison; run by /usr/bin/python3
#   time           GNU time, for peak resident memory (/usr/bin/time -v)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh python3-torch time
