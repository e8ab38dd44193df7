#!/usr/bin/env bash
# dtrain on Debian's oneDNN 2.x against dtrain on oneDNN 3.x (whether oneDNN 3.x is
# measurably faster, with both figures): the training throughput of bench/run.sh (same nets, same
# steps, same timing), both binaries alternating, best of REPEATS, and peak memory.
#
#   bash scripts/install-onednn3.sh   # once: oneDNN 3.x from PyPI into .onednn3
#   bash bench/onednn_versions.sh     # all six nets, 2 threads, best of 3
#   NETS="resnet50 mobilenet_v2" THREADS="1 2" REPEATS=1 bash bench/onednn_versions.sh
#
# It builds `dtrain` in build/ (Debian's oneDNN) and in build-onednn3/ (CMAKE_PREFIX_PATH=.onednn3).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

NETS=${NETS:-"lenet cifar10_quick cifar10_full googlenet resnet50 mobilenet_v2"}
THREADS=${THREADS:-2}
REPEATS=${REPEATS:-3}
OUT=bench/out/onednn_versions
mkdir -p "$OUT"
die() { echo "bench/onednn_versions.sh: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || die "GNU time missing: run bash bench/install-bench-deps.sh"
[ -d .onednn3/lib/cmake/dnnl ] || die "no oneDNN 3 in .onednn3: run bash scripts/install-onednn3.sh"

cmake --build build --target dtrain >/dev/null
cmake -S . -B build-onednn3 -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$PWD/.onednn3" >/dev/null
cmake --build build-onednn3 --target dtrain >/dev/null
cp -p build/dtrain "$OUT/dtrain-2"  # a rebuild during the run cannot touch what is measured
cp -p build-onednn3/dtrain "$OUT/dtrain-3"
v2=$("$OUT/dtrain-2" version | sed -n 's/^oneDNN //p')
v3=$("$OUT/dtrain-3" version | sed -n 's/^oneDNN //p')

echo "| net | threads | oneDNN $v2 img/s | oneDNN $v3 img/s | $v3 / $v2 | peak MiB ($v2) | peak MiB ($v3) |"
echo "|---|---|---|---|---|---|---|"
for net in $NETS; do
  [ -n "${BATCH[$net]:-}" ] || die "unknown net '$net'"
  for n in $THREADS; do
    best2=0 best3=0 rss2=0 rss3=0
    for r in $(seq "$REPEATS"); do
      for v in 2 3; do
        read -r rate rss < <(dtrain_train_rate "$OUT/dtrain-$v" "bench/nets/${net}_solver.prototxt" \
          "$n" "${WARMUP[$net]}" "${ITERS[$net]}" "${BATCH[$net]}" "$OUT/$net.$n.$v.$r")
        if [ "$v" = 2 ]; then best2=$(max_of "$best2" "$rate"); rss2=$(max_of "$rss2" "$rss")
        else best3=$(max_of "$best3" "$rate"); rss3=$(max_of "$rss3" "$rss"); fi
      done
    done
    awk -v net="$net" -v n="$n" -v a="$best2" -v b="$best3" -v ra="$rss2" -v rb="$rss3" \
      'BEGIN { printf "| %s | %s | %.1f | %.1f | %.2f | %s | %s |\n", net, n, a, b, b / a, ra, rb }'
  done
done
