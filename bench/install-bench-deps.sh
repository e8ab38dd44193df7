#!/usr/bin/env bash
# Installs what only the benchmarks in bench/ need, on top of the build and test packages (kept
# apart so that CI never pulls in PyTorch). Idempotent.
#   bench/.venv    a virtual environment of Debian's python3 (python3-venv) with the current
#                  PyTorch and torchvision from PyPI (CPU use; the wheels carry CUDA libraries too,
#                  about 5 GiB), the side-by-side comparison of bench/run.sh
#   python3-torch  Debian's PyTorch 1.13, the older peer (PEER_PYTHON=/usr/bin/python3)
#   time           GNU time, for peak resident memory (/usr/bin/time -v)
#   python3-dev    Python's headers, which torch.compile's C++ code for the CPU needs
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh python3-venv python3-dev python3-torch time
[ -x bench/.venv/bin/python ] || /usr/bin/python3 -m venv bench/.venv
bench/.venv/bin/python -m pip install --quiet --upgrade torch torchvision
bench/.venv/bin/python -c 'import torch, torchvision; print("bench/.venv: PyTorch", torch.__version__, "torchvision", torchvision.__version__)'
