#!/usr/bin/env bash
# The CIFAR-10 recipe on a cluster: cifar10_full trained on every host of a hostfile (the master
# computes too), its minibatches streamed to all ranks by a data server on the master.
#
#   HOSTFILE=~/hosts CIFAR_DIR=~/cifar-10-batches-bin bash scripts/run_cifar10_multinode.sh
#
# Builds the LMDBs and the mean file from CIFAR-10's binary batches (once), writes the job's net
# and solver into WORK, then runs `dtrain launch`. WORK and CIFAR_DIR must be on storage every
# host sees at the same path (an NFS/EFS/FSx mount); the binary too.
set -euo pipefail
cd "$(dirname "$0")/.."

# --- knobs ---------------------------------------------------------------------------------------
CIFAR_DIR=${CIFAR_DIR:-data/cifar-10-batches-bin}  # data_batch_{1..5}.bin and test_batch.bin
HOSTFILE=${HOSTFILE:-$HOME/hosts}                  # `dtrain hosts` writes one; first host = master
WORK=${WORK:-data/cifar10_multinode}               # LMDBs, mean file, job files, snapshots
BATCH_PER_NODE=${BATCH_PER_NODE:-100}              # images per rank per iteration
ITERATIONS=${ITERATIONS:-60000}
TEST_ITER=${TEST_ITER:-100}                        # test batches (of 100), split among the ranks
TEST_INTERVAL=${TEST_INTERVAL:-1000}
SNAPSHOT=${SNAPSHOT:-10000}                        # iterations between snapshots (restarts resume there)
PORT=${PORT:-5555}                                 # the data server's port on the master
DTRAIN=${DTRAIN:-build/dtrain}
LAUNCH_FLAGS=${LAUNCH_FLAGS:-}                     # e.g. "--threads-per-rank=16 --max-restarts=3"
# -------------------------------------------------------------------------------------------------

WORK=$(realpath -m "$WORK")
DTRAIN=$(realpath "$DTRAIN")
mkdir -p "$WORK"
if [ ! -d "$WORK/cifar10_train_lmdb" ]; then
  "$DTRAIN" convert cifar10 "$CIFAR_DIR" "$WORK"
fi
if [ ! -f "$WORK/mean.binaryproto" ]; then
  "$DTRAIN" compute-mean "$WORK/cifar10_train_lmdb" "$WORK/mean.binaryproto"
fi
master=$(awk '!/^[[:space:]]*(#|$)/ { print $1; exit }' "$HOSTFILE")

# The shipped net and solver, pointed at the data server (training) and WORK (test data, mean,
# snapshots).
sed -e "s|data/cifar10/mean.binaryproto|$WORK/mean.binaryproto|" \
    -e "s|source: \"data/cifar10/cifar10_train_lmdb\" batch_size: 100|source: \"tcp://$master:$PORT\" batch_size: $BATCH_PER_NODE|" \
    -e "s|data/cifar10/cifar10_test_lmdb|$WORK/cifar10_test_lmdb|" \
    models/cifar10_full/cifar10_full_train_test.prototxt > "$WORK/cifar10_full_train_test.prototxt"
sed -e "s|^net: .*|net: \"$WORK/cifar10_full_train_test.prototxt\"|" \
    -e "s|^max_iter: .*|max_iter: $ITERATIONS|" \
    -e "s|^test_iter: .*|test_iter: $TEST_ITER|" \
    -e "s|^test_interval: .*|test_interval: $TEST_INTERVAL|" \
    -e "s|^snapshot: .*|snapshot: $SNAPSHOT|" \
    -e "s|^snapshot_prefix: .*|snapshot_prefix: \"$WORK/cifar10_full\"|" \
    models/cifar10_full/cifar10_full_solver.prototxt > "$WORK/cifar10_full_solver.prototxt"

# shellcheck disable=SC2086  # LAUNCH_FLAGS holds several flags
exec "$DTRAIN" launch --hostfile="$HOSTFILE" \
  --data-server="--source=$WORK/cifar10_train_lmdb --batch-size=$BATCH_PER_NODE" \
  --data-server-port="$PORT" $LAUNCH_FLAGS \
  -- train --solver="$WORK/cifar10_full_solver.prototxt"
