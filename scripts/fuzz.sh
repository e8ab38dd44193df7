#!/usr/bin/env bash
# Builds dtrain's libFuzzer targets with clang (ASan + UBSan) into build-fuzz/ and runs each for
# FUZZ_SECONDS (default 30). A crash leaves its input in build-fuzz/findings/ and fails the script.
# scripts/test.sh runs this after the tests.
#   scripts/fuzz.sh [FUZZER...]     (data_server_frame, cluster_lists, file_parsers, plot_inputs;
#   default all)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release -DDTRAIN_FUZZ=ON \
  -DDTRAIN_BUILD_TESTS=OFF >/dev/null
fuzzers=(data_server_frame cluster_lists file_parsers plot_inputs)
if [ $# -gt 0 ]; then fuzzers=("$@"); fi
cmake --build build-fuzz --target "${fuzzers[@]/%/_fuzzer}"
mkdir -p build-fuzz/findings
for fuzzer in "${fuzzers[@]}"; do
  mkdir -p build-fuzz/corpus/${fuzzer}
  echo "fuzz: ${fuzzer} for ${seconds} s"
  status=0
  build-fuzz/${fuzzer}_fuzzer -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix=build-fuzz/findings/ build-fuzz/corpus/${fuzzer} > build-fuzz/${fuzzer}.log 2>&1 ||
    status=$?
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==|SUMMARY)|ERROR" build-fuzz/${fuzzer}.log || true
  if [ "$status" -ne 0 ]; then
    echo "fuzz: ${fuzzer} failed (exit $status); see build-fuzz/${fuzzer}.log and build-fuzz/findings/" >&2
    exit 1
  fi
done
