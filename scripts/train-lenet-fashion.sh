#!/usr/bin/env bash
# The main job: install dependencies, build, convert Fashion-MNIST (from Debian's
# dataset-fashion-mnist) to LMDBs under data/, and train LeNet on it with
# models/lenet_fashion/lenet_solver.prototxt. Prints progress and the final test accuracy.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh

raw=/usr/share/datasets/fashion-mnist
out=data/fashion_mnist
mkdir -p "$out" data/lenet_fashion
[ -d "$out/fashion_train_lmdb" ] ||
  ./build/dtrain convert mnist "$raw/train-images-idx3-ubyte.gz" "$raw/train-labels-idx1-ubyte.gz" \
    "$out/fashion_train_lmdb"
[ -d "$out/fashion_test_lmdb" ] ||
  ./build/dtrain convert mnist "$raw/t10k-images-idx3-ubyte.gz" "$raw/t10k-labels-idx1-ubyte.gz" \
    "$out/fashion_test_lmdb"

./build/dtrain train --solver=models/lenet_fashion/lenet_solver.prototxt \
  --metrics=data/lenet_fashion/metrics.jsonl "$@"
