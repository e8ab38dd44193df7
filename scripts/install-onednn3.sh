#!/usr/bin/env bash
# Installs oneDNN 3.x from PyPI for the optional oneDNN 3 build; Debian's libdnnl-dev (2.6) stays
# the default and is what install-deps.sh, CI and the packages use. Idempotent.
#   .onednn3   a virtual environment of Debian's python3 (python3-venv) holding Intel's
#              onednn-devel-cpu-gomp wheel: libdnnl.so.3 built on GNU OpenMP (the runtime dtrain
#              uses), its headers and its CMake package, under .onednn3/{lib,include}
# (PyPI's plain `onednn` wheels are the SYCL build, which needs Intel's DPC++ and OpenCL runtimes;
# the -cpu-gomp ones need nothing beyond libgomp.) Then build against it in its own build folder:
#   cmake -S . -B build-onednn3 -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PWD/.onednn3"
#   cmake --build build-onednn3 --target dtrain
set -euo pipefail
cd "$(dirname "$0")/.."
version="${ONEDNN3_VERSION:-2023.2.0}"  # the PyPI release; 2023.2.0 is oneDNN 3.2
bash scripts/install-deps.sh python3-venv
[ -x .onednn3/bin/python ] || /usr/bin/python3 -m venv .onednn3
.onednn3/bin/python -m pip install --quiet "onednn-devel-cpu-gomp==$version" "onednn-cpu-gomp==$version"
grep -h "define DNNL_VERSION_M" .onednn3/include/oneapi/dnnl/dnnl_version.h
