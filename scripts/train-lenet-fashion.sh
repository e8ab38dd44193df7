#!/usr/bin/env bash
# The main job: install dependencies, build, convert Fashion-MNIST (from Debian's
# dataset-fashion-mnist) to LMDBs under data/, and train LeNet on it with
# models/lenet_fashion/lenet_solver.prototxt, data-parallel over RANKS local processes under
# mpirun (default 2, one compute thread each; RANKS=1 trains in one process). --global-batch
# shares the solver's batch of 64 among the ranks, so every rank count trains the same model.
# Prints progress and the final test accuracy, and draws the run's curves into
# data/lenet_fashion/curve.png (dtrain plot).
set -euo pipefail
cd "$(dirname "$0")/.."
RANKS=${RANKS:-2}

bash scripts/install-deps.sh
bash scripts/build.sh --target dtrain

raw=/usr/share/datasets/fashion-mnist
out=data/fashion_mnist
mkdir -p "$out" data/lenet_fashion
[ -d "$out/fashion_train_lmdb" ] ||
  ./build/dtrain convert mnist "$raw/train-images-idx3-ubyte.gz" "$raw/train-labels-idx1-ubyte.gz" \
    "$out/fashion_train_lmdb"
[ -d "$out/fashion_test_lmdb" ] ||
  ./build/dtrain convert mnist "$raw/t10k-images-idx3-ubyte.gz" "$raw/t10k-labels-idx1-ubyte.gz" \
    "$out/fashion_test_lmdb"

train=(./build/dtrain train --solver=models/lenet_fashion/lenet_solver.prototxt
       --metrics=data/lenet_fashion/metrics.jsonl "$@")
if [ "$RANKS" -eq 1 ]; then
  "${train[@]}"
else
  # As root (CI, containers) Open MPI wants --allow-run-as-root; ranks yield the cores they wait on.
  mpirun --allow-run-as-root --oversubscribe -np "$RANKS" --bind-to none \
    --mca mpi_yield_when_idle 1 -x OMP_NUM_THREADS=1 \
    "${train[@]}" --global-batch --threads=1
fi
# The curves of this run: training loss and test accuracy and loss against the iteration.
./build/dtrain plot data/lenet_fashion/metrics.jsonl --output=data/lenet_fashion/curve.png
echo "training curves: data/lenet_fashion/curve.png (from data/lenet_fashion/metrics.jsonl)"
