#!/usr/bin/env bash
# The ecosystem's own readers that the tests check dtrain's files with, from PyPI into a virtual
# environment of the project's (.venv-oracles, of Debian's python3; never into Debian's Python):
#   tensorboard  its EventAccumulator reads `dtrain train --tensorboard` event files
#   onnxruntime  runs the models `dtrain export onnx` writes (tests/python/test_onnx_export.py)
# The product itself needs none of them. Idempotent; scripts/test.sh runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
[ -x .venv-oracles/bin/python ] || /usr/bin/python3 -m venv .venv-oracles
.venv-oracles/bin/python -m pip install --quiet --disable-pip-version-check tensorboard onnxruntime
.venv-oracles/bin/python -c 'import tensorboard, onnxruntime
print("test oracles: tensorboard", tensorboard.__version__, "onnxruntime", onnxruntime.__version__)'
