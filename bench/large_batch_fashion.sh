#!/usr/bin/env bash
# Large-batch training, measured: LeNet on Fashion-MNIST for 48 epochs three ways,
#   baseline  batch 64, SGD + momentum, multistep (models/lenet_fashion/large_batch/baseline_solver.prototxt)
#   lars      global batch 8192 over RANKS ranks (--global-batch), LARS (Intel Caffe's form) +
#             warmup + poly (models/lenet_fashion/large_batch/lars_solver.prototxt)
#   sgd       the same batch, plain SGD at the linearly scaled rate + warmup + poly
#             (models/lenet_fashion/large_batch/sgd_linear_solver.prototxt)
# and prints each one's final test accuracy, the large-batch runs' distance from the baseline,
# and draws every run's curves (dtrain plot). Logs and metrics go to bench/out/large_batch/.
#
#   bash bench/large_batch_fashion.sh               # all three, RANKS=4
#   RUNS="lars sgd" bash bench/large_batch_fashion.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RANKS=${RANKS:-4}
DTRAIN=${DTRAIN:-build/dtrain}   # the binary to run (a copy, so that a rebuild cannot touch it)
RUNS=${RUNS:-"baseline lars sgd"}
OUT=bench/out/large_batch
mkdir -p "$OUT"
[ -x "$DTRAIN" ] || bash scripts/build.sh --target dtrain >/dev/null

raw=/usr/share/datasets/fashion-mnist   # Debian's dataset-fashion-mnist
data=data/fashion_mnist
mkdir -p "$data" data/lenet_fashion/large_batch
[ -d "$data/fashion_train_lmdb" ] || "$DTRAIN" convert mnist \
  "$raw/train-images-idx3-ubyte.gz" "$raw/train-labels-idx1-ubyte.gz" "$data/fashion_train_lmdb"
[ -d "$data/fashion_test_lmdb" ] || "$DTRAIN" convert mnist \
  "$raw/t10k-images-idx3-ubyte.gz" "$raw/t10k-labels-idx1-ubyte.gz" "$data/fashion_test_lmdb"

declare -A SOLVER=([baseline]=models/lenet_fashion/large_batch/baseline_solver.prototxt
                   [lars]=models/lenet_fashion/large_batch/lars_solver.prototxt
                   [sgd]=models/lenet_fashion/large_batch/sgd_linear_solver.prototxt)
run() {  # run NAME: trains, leaves $OUT/NAME.log and $OUT/NAME.jsonl; a failed run is a result
  local name=$1 start
  start=$(date +%s)
  rm -f "$OUT/$name.jsonl"
  set +e
  if [ "$name" = baseline ]; then
    "$DTRAIN" train --solver="${SOLVER[$name]}" --metrics="$OUT/$name.jsonl" \
      >"$OUT/$name.log" 2>&1
  else
    mpirun --allow-run-as-root --oversubscribe -np "$RANKS" --bind-to none \
      --mca mpi_yield_when_idle 1 -x OMP_NUM_THREADS=1 \
      "$DTRAIN" train --solver="${SOLVER[$name]}" --global-batch --threads=1 \
      --metrics="$OUT/$name.jsonl" >"$OUT/$name.log" 2>&1
  fi
  set -e
  echo "$name: $(($(date +%s) - start)) s" >>"$OUT/seconds.txt"
}
: >"$OUT/seconds.txt"
for name in $RUNS; do
  echo "training $name ..." >&2
  run "$name"
done

# The last test accuracy each run logged (Caffe's "Test net output #0: accuracy = X"), or how
# it ended when it ended early ("diverged at iteration 9").
final_accuracy() {
  local diverged
  diverged=$(grep -o 'training diverged at iteration [0-9]*' "$OUT/$1.log" | head -1)
  if [ -n "$diverged" ]; then echo "${diverged#training }"; return; fi
  grep -o 'Test net output #[0-9]*: accuracy = [0-9.]*' "$OUT/$1.log" | tail -1 | awk '{print $NF}'
}
echo "| run | global batch | iterations (48 epochs) | final test accuracy | vs baseline (points) | seconds |"
echo "|---|---|---|---|---|---|"
base=$( [ -f "$OUT/baseline.log" ] && final_accuracy baseline || echo "")
for name in baseline lars sgd; do
  [ -f "$OUT/$name.log" ] || continue
  acc=$(final_accuracy "$name")
  iters=$(grep -o 'Iteration [0-9]*' "$OUT/$name.log" | tail -1 | awk '{print $2}')
  delta=-
  if [ -n "$base" ] && [[ "$acc" =~ ^[0-9.]+$ ]]; then
    delta=$(awk -v a="$acc" -v b="$base" 'BEGIN { printf "%+.2f", (a - b) * 100 }')
  fi
  batch=$( [ "$name" = baseline ] && echo 64 || echo "8192 ($RANKS x $((8192 / RANKS)))")
  secs=$(awk -v n="$name:" '$1 == n { print $2 }' "$OUT/seconds.txt")
  echo "| $name | $batch | $iters | $acc | $delta | ${secs:--} |"
done
for name in $RUNS; do
  [ -s "$OUT/$name.jsonl" ] && "$DTRAIN" plot "$OUT/$name.jsonl" --output="$OUT/$name.png" >/dev/null
done
echo "curves: $OUT/{${RUNS// /,}}.png; logs: $OUT/*.log" >&2
