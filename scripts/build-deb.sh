#!/usr/bin/env bash
# Builds the Debian package of dtrain (the command, the Python module, the docs and shipped
# models; cmake/DtrainInstall.cmake) for any x86-64 machine: a build of its own in build-deb/
# without -march=native and without the tests, then `cpack -G DEB`. Prints the .deb's path.
#   bash scripts/build-deb.sh [CMAKE_CONFIGURE_ARGS...]
# Install it with `apt-get install ./build-deb/dtrain_<version>_amd64.deb`, which fetches the
# libraries it depends on from Debian.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-deb -G Ninja -DCMAKE_BUILD_TYPE=Release -DDTRAIN_NATIVE=OFF \
  -DDTRAIN_BUILD_TESTS=OFF "$@" >/dev/null
cmake --build build-deb -j "$(nproc)"
(cd build-deb && cpack -G DEB >/dev/null)
ls "$PWD"/build-deb/dtrain_*_amd64.deb
