#!/usr/bin/env bash
# Sharing the machine: training throughput of dtrain and PyTorch while one other
# process keeps one core busy (a shell loop: what a data server or any other job beside training
# costs, at its worst), against the same run alone, on the nets where sharing hurt (cifar10_full,
# GoogLeNet, ResNet-50). Each side runs with its default threads (PyTorch: every core; dtrain: the
# cores other processes leave idle, measured as it starts, kernels/compute_threads.h), at all
# cores' threads and at one thread fewer (leaving the busy core alone), best of REPEATS,
# alternating; "x alone" is each side's busy / alone throughput at the same setting: how much it
# degrades. The default rows name the thread counts dtrain chose alone / busy.
#
#   bash bench/shared_machine.sh                    # cifar10_full googlenet resnet50, best of 3
#   NETS=cifar10_full REPEATS=1 bash bench/shared_machine.sh
#   SETTINGS=default bash bench/shared_machine.sh   # only the default threads (also: all, fewer)
#
# Needs bench/install-bench-deps.sh (PyTorch in bench/.venv, GNU time). Logs: bench/out/shared/.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

NETS=${NETS:-"cifar10_full googlenet resnet50"}
REPEATS=${REPEATS:-3}
PYTHON=${PEER_PYTHON:-bench/.venv/bin/python}
# channels_last was PyTorch's faster setting on all three nets in every bench/run.sh so far.
TORCH_SETTINGS=${TORCH_SETTINGS:-"eager-channels_last"}
SETTINGS=${SETTINGS:-"default all fewer"}
CORES=$(nproc)
FEWER=$((CORES > 1 ? CORES - 1 : 1))
thread_counts=()  # 0: each side's default
for setting in $SETTINGS; do
  case $setting in
    default) thread_counts+=(0) ;; all) thread_counts+=("$CORES") ;; fewer) thread_counts+=("$FEWER") ;;
    *) echo "bench/shared_machine.sh: unknown setting '$setting' (default, all, fewer)" >&2; exit 1 ;;
  esac
done
OUT=bench/out/shared
mkdir -p "$OUT"
die() { echo "bench/shared_machine.sh: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || die "GNU time missing: run bash bench/install-bench-deps.sh"
$PYTHON -c "import torch, torchvision" 2>/dev/null || die "no PyTorch for $PYTHON: run bash bench/install-bench-deps.sh"

for net in $NETS; do [ -n "${BATCH[$net]:-}" ] || die "unknown net '$net'"; done

cmake --build build --target dtrain >/dev/null
cp -p build/dtrain "$OUT/dtrain"
DTRAIN=$OUT/dtrain

BUSY_PID=
start_busy() { bash -c 'while :; do :; done' & BUSY_PID=$!; sleep 0.2; }
stop_busy() { [ -z "$BUSY_PID" ] || kill "$BUSY_PID" 2>/dev/null || true; wait "$BUSY_PID" 2>/dev/null || true; BUSY_PID=; }
trap stop_busy EXIT

dtrain_rate() {  # net threads tag -> img/s
  local res
  res=$(dtrain_train_rate "$DTRAIN" "bench/nets/${1}_solver.prototxt" "$2" "${WARMUP[$1]}" \
    "${ITERS[$1]}" "${BATCH[$1]}" "$OUT/dtrain_${1}_t${2}_$3") || exit 1
  echo "${res%% *}"
}
chosen_threads() {  # net tag -> the thread count a default run of dtrain logged
  sed -n 's/.*Computing on \([0-9]*\) thread.*/\1/p' "$OUT/dtrain_${1}_t0_$2.log" | head -1
}
torch_rate() {  # net threads tag -> img/s, the best of TORCH_SETTINGS
  local best=0 res setting
  for setting in $TORCH_SETTINGS; do
    res=$(torch_train_rate "$PYTHON" "$1" "$2" "${WARMUP[$1]}" "${ITERS[$1]}" "$setting" \
      "$OUT/torch_${1}_t${2}_${3}_$setting") || exit 1
    best=$(max_of "$best" "${res%% *}")
  done
  echo "$best"
}

rows=()
for net in $NETS; do
  for n in $(printf '%s\n' "${thread_counts[@]}" | uniq); do
    echo "bench: sharing the machine, $net, $n thread(s) (0: default) ..." >&2
    d_alone=0 d_busy=0 t_alone=0 t_busy=0
    for ((r = 1; r <= REPEATS; r++)); do
      d_alone=$(max_of "$d_alone" "$(dtrain_rate "$net" "$n" "alone_r$r")")
      t_alone=$(max_of "$t_alone" "$(torch_rate "$net" "$n" "alone_r$r")")
      start_busy
      d_busy=$(max_of "$d_busy" "$(dtrain_rate "$net" "$n" "busy_r$r")")
      t_busy=$(max_of "$t_busy" "$(torch_rate "$net" "$n" "busy_r$r")")
      stop_busy
    done
    label=$n
    if [ "$n" = 0 ]; then  # the thread counts dtrain's last runs chose
      label="default (dtrain: $(chosen_threads "$net" alone_r$REPEATS) / $(chosen_threads "$net" busy_r$REPEATS))"
    fi
    rows+=("$(awk -v net="$net" -v n="$label" -v da="$d_alone" -v db="$d_busy" -v ta="$t_alone" \
      -v tb="$t_busy" 'BEGIN {
        printf "| %s | %s | %.1f | %.1f (%.2f) | %.1f | %.1f (%.2f) | %.2f | %.2f |",
          net, n, da, db, db / da, ta, tb, tb / ta, da / ta, db / tb }')")
  done
done

{
  echo "Sharing the machine: one busy process beside training; dtrain vs PyTorch" \
    "$($PYTHON -c 'import torch; print(torch.__version__)') ($TORCH_SETTINGS)"
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p'), $CORES cores;" \
    "dtrain at $(git rev-parse --short HEAD 2>/dev/null || echo '?'); best of $REPEATS per cell"
  echo
  echo "| net | threads | dtrain alone | dtrain busy (x alone) | PyTorch alone | PyTorch busy (x alone) | dtrain/PyTorch alone | dtrain/PyTorch busy |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "img/s; \"busy\": a shell loop keeps one core busy during the run."
} | tee "$OUT/results.md"
