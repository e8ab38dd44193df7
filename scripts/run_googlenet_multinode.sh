#!/usr/bin/env bash
# The ImageNet/GoogLeNet recipe on a cluster: BVLC GoogLeNet trained on every host of a hostfile
# (the master computes too), each rank reading its own shard of the JPEG images.
#
#   HOSTFILE=~/hosts path_to_imagenet_train_folder=/shared/imagenet/train batchsize_pernode=32 \
#     bash scripts/run_googlenet_multinode.sh
#
# Lists the images (one class per folder, classes numbered in sorted order) unless TRAIN_LIST is
# given, splits the list into one balanced, shuffled shard per rank, writes the job's net and
# solver into WORK (models/googlenet/ with its paths set), then runs `dtrain launch`. The folder,
# WORK and the binary must be on storage every host sees at the same path.
set -euo pipefail
cd "$(dirname "$0")/.."

# --- knobs ---------------------------------------------------------------------------------------
path_to_imagenet_train_folder=${path_to_imagenet_train_folder:-data/imagenet/train}
batchsize_pernode=${batchsize_pernode:-32}         # images per rank per iteration
HOSTFILE=${HOSTFILE:-$HOME/hosts}                  # `dtrain hosts` writes one; first host = master
WORK=${WORK:-data/googlenet_multinode}             # lists, shards, job files, snapshots
TRAIN_LIST=${TRAIN_LIST:-}                         # "class/image.JPEG label" lines; default: made here
ITERATIONS=${ITERATIONS:-2400000}
SNAPSHOT=${SNAPSHOT:-40000}
PER_WORKER_FILES=${PER_WORKER_FILES:-0}            # 1: a solver, net and list file per rank
                                                   # (launch --per-worker-files) instead of %# paths
DTRAIN=${DTRAIN:-build/dtrain}
LAUNCH_FLAGS=${LAUNCH_FLAGS:-}                     # e.g. "--threads-per-rank=16 --interface=eth0"
# -------------------------------------------------------------------------------------------------

images=$(realpath "$path_to_imagenet_train_folder")
WORK=$(realpath -m "$WORK")
DTRAIN=$(realpath "$DTRAIN")
mkdir -p "$WORK"
ranks=$(awk '!/^[[:space:]]*(#|$)/ { n = 1; for (i = 2; i <= NF; i++) if ($i ~ /^slots=/) { split($i, s, "="); n = s[2] }; total += n }
             END { print total }' "$HOSTFILE")

if [ -z "$TRAIN_LIST" ]; then
  TRAIN_LIST=$WORK/train.txt
  (cd "$images" && find . -mindepth 2 -type f \( -iname '*.jpeg' -o -iname '*.jpg' -o -iname '*.png' \) |
     sed 's|^\./||' | sort |
     awk -F/ '{ if (!($1 in label)) label[$1] = classes++; print $0, label[$1] }') > "$TRAIN_LIST"
fi
echo "run_googlenet_multinode: $(wc -l < "$TRAIN_LIST") images, $ranks ranks x $batchsize_pernode per iteration"

if [ "$PER_WORKER_FILES" = 1 ]; then
  source_list=$TRAIN_LIST            # launch writes train_<rank>.txt and the files that use them
  per_worker=(--per-worker-files --work-dir="$WORK/per_worker")
else
  "$DTRAIN" split-list --workers="$ranks" "$TRAIN_LIST" "$WORK/train_%#_of_%*.txt"
  source_list="$WORK/train_%#_of_%*.txt"
  per_worker=()
fi

sed -e "s|source: \"data/imagenet/train_%#_of_%\*.txt\"|source: \"$source_list\"|" \
    -e "s|root_folder: \"data/imagenet/train/\"|root_folder: \"$images/\"|" \
    -e "0,/batch_size: 32/s//batch_size: $batchsize_pernode/" \
    models/googlenet/train_val.prototxt > "$WORK/train_val.prototxt"
sed -e "s|^net: .*|net: \"$WORK/train_val.prototxt\"|" \
    -e "s|^max_iter: .*|max_iter: $ITERATIONS|" \
    -e "s|^snapshot: .*|snapshot: $SNAPSHOT|" \
    -e "s|^snapshot_prefix: .*|snapshot_prefix: \"$WORK/googlenet\"|" \
    models/googlenet/solver.prototxt > "$WORK/solver.prototxt"

# shellcheck disable=SC2086  # LAUNCH_FLAGS holds several flags
exec "$DTRAIN" launch --hostfile="$HOSTFILE" "${per_worker[@]}" $LAUNCH_FLAGS \
  -- train --solver="$WORK/solver.prototxt"
