#!/usr/bin/env bash
# The data path against synthetic data (does the data path keep up?): training throughput of
# cifar10_full and ResNet-50 fed (a) by DummyData (the in-memory batch of bench/run.sh), (b) by an
# LMDB through the Data layer (raw pixels, as `dtrain convert imageset` writes them; prefetch on
# its own thread) and (c) by JPEG files through ImageData (decoded, resized and transformed on its
# decode threads while the step runs), on the same cores, best of REPEATS alternating. The ratio
# b/a and c/a is what the data path costs; the target is >= 0.95.
#
#   bash bench/data_path.sh                       # cifar10_full resnet50, 2 threads, best of 3
#   NETS=cifar10_full THREADS="1 2" REPEATS=1 bash bench/data_path.sh
#
# The images are synthetic (bench/make_image_set.cc: photo-like, so that they compress and decode
# like photos), made once under bench/out/data_path/; the recipes are the usual ones:
#   cifar10_full: 32x32 images, mean file from `dtrain compute-mean`;
#   resnet50: 500x375 JPEGs (ImageNet's typical size); the LMDB resized to 256x256 as Caffe's
#   create_imagenet.sh does, ImageData resizing each decoded JPEG to 256x256 (new_height/new_width);
#   both crop 224 at random and mirror, with ImageNet's mean values; ImageData shuffles.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

NETS=${NETS:-"cifar10_full resnet50"}
THREADS=${THREADS:-2}
REPEATS=${REPEATS:-3}
OUT=bench/out/data_path
mkdir -p "$OUT"
die() { echo "bench/data_path.sh: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || die "GNU time missing: run bash bench/install-bench-deps.sh"

declare -A BATCH=([cifar10_full]=100 [resnet50]=16)
declare -A WARMUP=([cifar10_full]=2 [resnet50]=1)
declare -A ITERS=([cifar10_full]=100 [resnet50]=10)  # 5-20 s per run: this VM is noisy
declare -A IMAGES=([cifar10_full]=2000 [resnet50]=200)  # fewer than the run reads: epochs wrap
declare -A IMAGE_SIZE=([cifar10_full]="32 32" [resnet50]="375 500")
for net in $NETS; do [ -n "${BATCH[$net]:-}" ] || die "unknown net '$net' (cifar10_full, resnet50)"; done

cmake --build build --target dtrain dtrain_make_image_set >/dev/null
cp -p build/dtrain "$OUT/dtrain"  # a rebuild during the run cannot touch what is measured
DTRAIN=$OUT/dtrain

# The data set of a net, made once: JPEG files + list, the LMDB of their pixels, its mean.
make_data() {
  local net=$1 dir=$OUT/$1 resize=()
  [ -f "$dir/done" ] && return
  rm -rf "$dir" && mkdir -p "$dir/images"
  # shellcheck disable=SC2086  # IMAGE_SIZE is "HEIGHT WIDTH"
  build/dtrain_make_image_set "$dir/images" "${IMAGES[$net]}" ${IMAGE_SIZE[$net]}
  [ "$net" = resnet50 ] && resize=(--resize_height=256 --resize_width=256)
  "$DTRAIN" convert "${resize[@]}" --shuffle imageset "$dir/images/" "$dir/images/list.txt" \
    "$dir/lmdb" >"$dir/convert.log" 2>&1 || die "convert failed, see $dir/convert.log"
  "$DTRAIN" compute-mean "$dir/lmdb" "$dir/mean.binaryproto" >"$dir/mean.log" 2>&1 ||
    die "compute-mean failed, see $dir/mean.log"
  touch "$dir/done"
}

# The input layer of a net for one feed (dummy: none, bench/nets/ as it is).
data_layer() {  # net feed
  local dir=$OUT/$1 transform source
  if [ "$1" = resnet50 ]; then
    transform='transform_param { crop_size: 224 mirror: true mean_value: 104 mean_value: 117 mean_value: 123 }'
  else
    transform="transform_param { mean_file: \"$dir/mean.binaryproto\" }"
  fi
  case $2 in
    lmdb) cat <<LAYER ;;
layer {
  name: "data" type: "Data" top: "data" top: "label"
  $transform
  data_param { source: "$dir/lmdb" batch_size: ${BATCH[$1]} backend: LMDB }
}
LAYER
    jpeg)
      source="source: \"$dir/images/list.txt\" root_folder: \"$dir/images/\" batch_size: ${BATCH[$1]} shuffle: true"
      [ "$1" = resnet50 ] && source+=" new_height: 256 new_width: 256"
      cat <<LAYER ;;
layer {
  name: "data" type: "ImageData" top: "data" top: "label"
  $transform
  image_data_param { $source }
}
LAYER
  esac
}

# The bench net and solver with their DummyData layer (the first layer) replaced by a feed's.
make_variant() {  # net feed -> solver path
  local net=$1 feed=$2 solver=$OUT/${1}_${2}_solver.prototxt
  if [ "$feed" = dummy ]; then echo "bench/nets/${net}_solver.prototxt"; return; fi
  awk -v layer="$(data_layer "$net" "$feed")" '
    !done && /^layer \{/ { skipping = 1 }
    skipping { if (/^\}/) { print layer; skipping = 0; done = 1 } next }
    { print }' "bench/nets/$net.prototxt" >"$OUT/${net}_$feed.prototxt"
  sed "s|^net: .*|net: \"$OUT/${net}_$feed.prototxt\"|" "bench/nets/${net}_solver.prototxt" >"$solver"
  echo "$solver"
}

rows=()
for net in $NETS; do
  make_data "$net"
  declare -A solver=() best=()
  for feed in dummy lmdb jpeg; do solver[$feed]=$(make_variant "$net" "$feed"); done
  for n in $THREADS; do
    echo "bench: data path, $net, $n thread(s) ..." >&2
    best=([dummy]=0 [lmdb]=0 [jpeg]=0)
    for ((r = 1; r <= REPEATS; r++)); do
      for feed in dummy lmdb jpeg; do
        res=$(dtrain_train_rate "$DTRAIN" "${solver[$feed]}" "$n" "${WARMUP[$net]}" \
          "${ITERS[$net]}" "${BATCH[$net]}" "$OUT/${net}_${feed}_t${n}_r$r")
        best[$feed]=$(max_of "${best[$feed]}" "${res%% *}")
      done
    done
    rows+=("$(awk -v net="$net" -v n="$n" -v d="${best[dummy]}" -v l="${best[lmdb]}" \
      -v j="${best[jpeg]}" 'BEGIN { printf "| %s | %d | %.1f | %.1f | %.3f | %.1f | %.3f |",
        net, n, d, l, l / d, j, j / d }')")
  done
done

{
  echo "dtrain data path vs in-memory data, training steps (forward + backward + SGD momentum)"
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores;" \
    "dtrain at $(git rev-parse --short HEAD 2>/dev/null || echo '?'); best of $REPEATS per cell;" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
  echo
  echo "| net | threads | DummyData img/s | LMDB Data img/s | LMDB / DummyData | JPEG ImageData img/s | ImageData / DummyData |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} | tee "$OUT/results.md"
