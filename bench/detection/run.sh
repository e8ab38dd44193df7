#!/usr/bin/env bash
# Detection from scratch, end to end (issue 46's acceptance): a synthetic data set of shapes
# (make_shapes.py), `dtrain convert annoset`, a small MobileNet-SSD (make_ssd_net.py) trained on 1
# rank and on 2 ranks (the same global batch, --global-batch), the test phase's mAP (11point) and
# `dtrain test`'s on the held-out split, the time of each run. Prints a summary and leaves the
# logs, snapshots and a plot in OUT.
#
# Usage: bench/detection/run.sh  (from the repository root; build/dtrain built)
#   OUT=/tmp/ssd-shapes IMAGES=3000 ITERS=3000 BATCH=16 RANKS="1 2" PYTHON=python3 DTRAIN=build/dtrain
# PYTHON needs NumPy (bench/.venv has it). Takes about an hour per rank count on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
DTRAIN=$(realpath "${DTRAIN:-build/dtrain}")
OUT=${OUT:-/tmp/ssd-shapes}
IMAGES=${IMAGES:-3000}
ITERS=${ITERS:-3000}
BATCH=${BATCH:-16}
RANKS=${RANKS:-"1 2"}
PYTHON=${PYTHON:-$( [ -x bench/.venv/bin/python ] && echo bench/.venv/bin/python || echo python3 )}

mkdir -p "$OUT"
data="$OUT/data"
if [ ! -d "$data/test_lmdb" ]; then
  rm -rf "$data"
  "$PYTHON" bench/detection/make_shapes.py "$data" --images "$IMAGES"
  for split in train test; do
    "$DTRAIN" convert annoset "$data/" "$data/$split.txt" "$data/${split}_lmdb" --anno_type=detection \
      --label_type=xml --label_map_file="$data/labelmap.prototxt" 2>&1 | tail -1
  done
fi
test_images=$(grep -c . "$data/test.txt")

summary=()
for ranks in $RANKS; do
  run="$OUT/ranks$ranks"
  rm -rf "$run"
  "$PYTHON" bench/detection/make_ssd_net.py "$run" --data "$data" --iters "$ITERS" --batch "$BATCH"
  launcher=()
  [ "$ranks" -gt 1 ] && launcher=(mpirun --allow-run-as-root --oversubscribe -np "$ranks")
  start=$(date +%s)
  threads=$(( $(nproc) / ranks > 0 ? $(nproc) / ranks : 1 ))
  if ! "${launcher[@]}" "$DTRAIN" train --threads="$threads" \
      --solver="$run/solver.prototxt" --global-batch --metrics="$OUT/ranks$ranks.jsonl" \
      >"$run/train.log" 2>&1; then
    tail -20 "$run/train.log"
    echo "training on $ranks rank(s) failed: $run/train.log"
    exit 1
  fi
  grep -E "detection_eval|Optimization Done" "$run/train.log" || true
  seconds=$(( $(date +%s) - start ))
  solver_map=$(grep -oE "detection_eval = [0-9.]+" "$run/train.log" | tail -1 | awk '{print $3}')
  test_map=$("$DTRAIN" test --model="$run/train_test.prototxt" \
    --weights="$run/ssd_shapes_iter_$ITERS.caffemodel" --iterations=$(( (test_images + 9) / 10 )) \
    --ap-version=11point 2>&1 | tee "$run/test.log" | grep -oE "detection_eval = [0-9.]+" | tail -1 | awk '{print $3}')
  summary+=("ranks $ranks: $ITERS iterations of $BATCH images in ${seconds}s; test phase mAP $solver_map; dtrain test: $test_map")
done
"$DTRAIN" plot $(for r in $RANKS; do echo "$OUT/ranks$r.jsonl"; done) --output="$OUT/curves.png" || true
printf '%s\n' "${summary[@]}"
