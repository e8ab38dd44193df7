#!/usr/bin/env bash
# Data-server throughput over loopback (bench/data_server_bench.cc) next to the rate at which
# dtrain consumes cifar10_quick batches on this machine (`dtrain time`, forward + backward, all
# cores): each CIFAR row shows its multiple of that rate (the target: >= 10).
# Run on an idle machine: SECONDS_PER_CELL (default 3) per cell, 12 cells, ~1 min in all.
set -euo pipefail
cd "$(dirname "$0")/.."
threads=${THREADS:-$(nproc)}
cmake --build build --target dtrain dtrain_data_server_bench >/dev/null
consumed=$(build/dtrain time --model=bench/nets/cifar10_quick.prototxt --iterations=20 \
             --threads="$threads" 2>&1 | sed -n 's/.*Throughput: \([0-9.]*\) images\/s.*/\1/p')
echo "cifar10_quick forward+backward, $threads threads: $consumed images/s ($(date -u +%H:%M) UTC, $(git rev-parse --short HEAD))"
echo
build/dtrain_data_server_bench --seconds="${SECONDS_PER_CELL:-3}" --threads="$threads" \
  --consumer-img-s="$consumed"
