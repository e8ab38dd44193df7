#!/usr/bin/env bash
# End-to-end training throughput, dtrain vs PyTorch (the current release from PyPI, at its best
# setting per cell), on the nets of bench/nets/ at 1 and 2 threads, plus the machine's OpenBLAS
# sgemm peak; prints one markdown table (also written to bench/out/results.md). See
# bench/README.md for what is measured.
#
#   bash bench/run.sh                 # all nets, THREADS="1 2"
#   NETS="lenet cifar10_quick" THREADS=2 bash bench/run.sh
#   SKIP_BUILD=1 bash bench/run.sh    # use build/dtrain as it is
#   REPEATS=1 bash bench/run.sh       # one measurement each instead of the best of 3
#   TORCH_SETTINGS="eager-nchw" bash bench/run.sh        # which PyTorch settings to try
#   PEER_PYTHON=/usr/bin/python3 bash bench/run.sh      # Debian's PyTorch 1.13 instead
#
# Needs bench/install-bench-deps.sh once (bench/.venv with PyTorch, GNU time). Logs go to
# bench/out/.
set -euo pipefail
cd "$(dirname "$0")/.."

NETS=${NETS:-"lenet cifar10_quick cifar10_full googlenet resnet50 mobilenet_v2"}
THREADS=${THREADS:-"1 2"}
REPEATS=${REPEATS:-3}   # each measurement, alternating dtrain and PyTorch; the best is reported
DTRAIN=${DTRAIN:-build/dtrain}
PYTHON=${PEER_PYTHON:-bench/.venv/bin/python}  # bench/install-bench-deps.sh makes the venv
# PyTorch's settings (bench/torch_bench.py); each cell reports the fastest and names it.
TORCH_SETTINGS=${TORCH_SETTINGS:-"eager-nchw eager-channels_last"}
OUT=bench/out
mkdir -p "$OUT"

# Per net: batch size, untimed warmup steps, timed steps: BATCH, WARMUP, ITERS (bench/lib.sh).
source bench/lib.sh  # also dtrain_train_rate, torch_train_rate, max_of

die() { echo "bench/run.sh: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || die "GNU time missing: run bash bench/install-bench-deps.sh"
$PYTHON -c "import torch, torchvision" 2>/dev/null ||
  die "no PyTorch and torchvision for $PYTHON: run bash bench/install-bench-deps.sh"
for net in $NETS; do [ -n "${BATCH[$net]:-}" ] || die "unknown net '$net'"; done

# --- build ---------------------------------------------------------------------------------
if [ -z "${SKIP_BUILD:-}" ] && pgrep -x ninja >/dev/null; then
  echo "bench/run.sh: another build (ninja) is running; not building, using $DTRAIN as it is" >&2
elif [ -z "${SKIP_BUILD:-}" ]; then
  if [ -f build/build.ninja ]; then
    cmake --build build --target dtrain >/dev/null
  else
    bash scripts/build.sh >/dev/null
  fi
fi
[ -x "$DTRAIN" ] || die "$DTRAIN not built"
# Run a private copy, so that a rebuild of build/ during the benchmark cannot change or break it.
DTRAIN_BUILT=$DTRAIN
cp -p "$DTRAIN" "$OUT/dtrain"
DTRAIN=$OUT/dtrain
BLAS_INC=$(dirname "$(readlink -f /usr/include/x86_64-linux-gnu/cblas.h 2>/dev/null || echo /usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h)")
cc -O2 bench/gemm_peak.c -I"$BLAS_INC" -lopenblas -o "$OUT/gemm_peak"

# --- helpers -------------------------------------------------------------------------------

dtrain_bench() {  # net threads repeat -> "img_per_s rss_mb"
  dtrain_train_rate "$DTRAIN" "bench/nets/${1}_solver.prototxt" "$2" "${WARMUP[$1]}" \
    "${ITERS[$1]}" "${BATCH[$1]}" "$OUT/dtrain_${1}_t${2}_r$3" || exit 1
}

torch_bench() {  # net threads repeat setting -> "img_per_s rss_mb"
  torch_train_rate "$PYTHON" "$1" "$2" "${WARMUP[$1]}" "${ITERS[$1]}" "$4" \
    "$OUT/torch_${1}_t${2}_r${3}_$4" || exit 1
}

# GFLOP/s of the convolution layers alone (forward + backward FLOPs over their time), from
# `dtrain time`'s per-layer timing.
declare -A TIME_ITERS=([lenet]=50 [cifar10_quick]=10 [cifar10_full]=10 [googlenet]=2
                       [resnet50]=2 [mobilenet_v2]=2)
conv_gflops() {  # net threads -> GFLOP/s
  local log="$OUT/time_${1}_t$2.log"
  OMP_NUM_THREADS=$2 OPENBLAS_NUM_THREADS=$2 "$DTRAIN" time --model="bench/nets/$1.prototxt" \
    --iterations="${TIME_ITERS[$1]}" --threads="$2" >"$log" 2>&1 || die "dtrain time failed, see $log"
  sed -n 's/.*Convolution layers: .* ms forward+backward, \([0-9.]*\) GFLOP\/s.*/\1/p' "$log"
}

# Training MFLOP per image, estimated as 3x the forward MFLOP of `dtrain check` (backward of a
# conv/fc layer is about twice its forward: data gradient plus weight gradient).
train_mflop_per_image() {
  local table
  table=$("$DTRAIN" check --model="bench/nets/$1.prototxt" 2>&1) || die "dtrain check $1 failed"
  echo "$table" | awk -v b="${BATCH[$1]}" '/^total/ && !done { printf "%.2f\n", 3 * $NF / b; done = 1 }'
}

# CPU ticks (USER_HZ) busy on the whole machine, and used by this script and its reaped children;
# the difference over a measurement is other work running at the same time.
cpu_ticks() {
  local busy mine
  busy=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat)
  mine=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$$/stat")
  echo "$busy $mine $(awk '{ printf "%d", $1 * 100 }' /proc/uptime)"
}
# Cores' worth of other work between two cpu_ticks snapshots.
other_cores() {
  echo "$1 $2" | awk '{ wall = $6 - $3; if (wall <= 0) { print 0; exit }
    o = (($4 - $1) - ($5 - $2)) / wall; printf "%.1f\n", o < 0 ? 0 : o }'
}

# --- run -----------------------------------------------------------------------------------
start_load=$(cut -d' ' -f1-3 /proc/loadavg)
run_start=$(cpu_ticks)
"$OUT/gemm_peak" $THREADS >"$OUT/gemm_peak.log" || die "gemm_peak failed"
declare -A PEAK
while read -r _ threads_kv gflops_kv _; do
  PEAK[${threads_kv#threads=}]=${gflops_kv#best_gflops=}
done <"$OUT/gemm_peak.log"
gemm_other=$(other_cores "$run_start" "$(cpu_ticks)")

rows=()
for net in $NETS; do
  mflop=$(train_mflop_per_image "$net")
  for n in $THREADS; do
    echo "bench: $net, $n thread(s) ..." >&2
    before=$(cpu_ticks)
    d_ips=0 t_ips=0 t_setting=none
    for ((r = 1; r <= REPEATS; r++)); do  # alternate, keep the best of each
      res=$(dtrain_bench "$net" "$n" "$r")
      read -r ips d_rss <<<"$res"
      d_ips=$(max_of "$d_ips" "$ips")
      for setting in $TORCH_SETTINGS; do
        res=$(torch_bench "$net" "$n" "$r" "$setting")
        read -r ips rss <<<"$res"
        if awk -v a="$t_ips" -v b="$ips" 'BEGIN { exit !(b > a) }'; then
          t_ips=$ips t_rss=$rss t_setting=$setting
        fi
      done
    done
    conv=$(conv_gflops "$net" "$n")
    other=$(other_cores "$before" "$(cpu_ticks)")
    rows+=("$(awk -v net="$net" -v n="$n" -v d="$d_ips" -v t="$t_ips" -v dr="$d_rss" \
      -v tr="$t_rss" -v ts="$t_setting" -v mf="$mflop" -v peak="${PEAK[$n]:-0}" -v other="$other" \
      -v conv="$conv" 'BEGIN {
        g = d * mf / 1000; pct = peak > 0 ? 100 * g / peak : 0;
        cpct = peak > 0 ? 100 * conv / peak : 0;
        printf "| %s | %d | %.1f | %.1f (%s) | %.2f | %.1f (%.0f%%) | %.1f (%.0f%%) | %d | %d | %.1f |",
               net, n, d, t, ts, (t > 0 ? d / t : 0), g, pct, conv, cpct, dr, tr, other }')")
  done
done
end_load=$(cut -d' ' -f1-3 /proc/loadavg)
total_other=$(other_cores "$run_start" "$(cpu_ticks)")

# --- report --------------------------------------------------------------------------------
{
  echo "dtrain vs PyTorch $($PYTHON -c 'import torch; print(torch.__version__)'), training steps" \
    "(forward + backward + SGD momentum), synthetic data in memory"
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores;" \
    "dtrain at $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- src 2>/dev/null || echo ' with local changes in src/')," \
    "binary built $(date -u -r "$DTRAIN_BUILT" '+%Y-%m-%d %H:%M UTC'); best of $REPEATS per cell"
  echo "Other work may run at the same time: load average at start $start_load, at end $end_load;" \
    "other processes kept $total_other of $(nproc) cores busy on average over the run" \
    "(last column: the same during each row)."
  echo
  echo "| net | threads | dtrain img/s | PyTorch img/s (best setting) | dtrain/PyTorch | dtrain GFLOP/s (% of sgemm peak) | conv layers GFLOP/s (% of peak) | dtrain peak RSS MiB | PyTorch peak RSS MiB | other load (cores) |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  for n in $THREADS; do echo "OpenBLAS sgemm peak, $n thread(s): ${PEAK[$n]:-?} GFLOP/s"; done
  echo "(other load during the sgemm probe: $gemm_other cores)"
  echo "dtrain GFLOP/s: img/s times 3x the forward FLOPs per image of \`dtrain check\` (an estimate);" \
    "% of the sgemm peak at the same thread count. Conv layers: forward + backward FLOPs of the" \
    "Convolution layers over their time in \`dtrain time\` (relayouts included)."

} | tee "$OUT/results.md"
