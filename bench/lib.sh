# Shared by bench/run.sh, bench/data_path.sh and bench/shared_machine.sh (sourced, not run):
# one measured run of each side, and the nets' step counts.

# Per net: batch size, untimed warmup steps, timed steps (the same for dtrain and PyTorch).
declare -gA BATCH=([lenet]=64 [cifar10_quick]=100 [cifar10_full]=100 [googlenet]=32
                  [resnet50]=16 [mobilenet_v2]=32)
declare -gA WARMUP=([lenet]=5 [cifar10_quick]=2 [cifar10_full]=2 [googlenet]=1 [resnet50]=1
                   [mobilenet_v2]=1)
declare -gA ITERS=([lenet]=100 [cifar10_quick]=20 [cifar10_full]=20 [googlenet]=3 [resnet50]=3
                  [mobilenet_v2]=3)

# Seconds between the display lines of iterations $2 and $3 in a dtrain log (the bench solvers
# display every iteration; Caffe's glog timestamps, microseconds): the steps after $2 up to $3.
steps_seconds() {
  awk -v from="$2" -v to="$3" '
    function t(s) { split(s, a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
    $0 ~ "Iteration " from " \\(" { start = t($2) }
    $0 ~ "Iteration " to " \\("   { stop = t($2) }
    END { if (start == "" || stop == "") exit 1; d = stop - start; if (d < 0) d += 86400;
          printf "%.6f\n", d }' "$1"
}
max_rss_mb() { awk -F': ' '/Maximum resident set size/ { printf "%.0f\n", $2 / 1024 }' "$1"; }

# One `dtrain train` run of W + K + 1 steps (0 .. W + K) at N threads (0: dtrain's default, with
# OMP_NUM_THREADS and OPENBLAS_NUM_THREADS unset), timed from the display line of step W to that
# of step W + K, so that start-up, net construction and warmup stay out; its log and
# /usr/bin/time -v report are BASE.log and BASE.time.
#   dtrain_train_rate DTRAIN SOLVER N W K BATCH BASE -> "img_per_s peak_rss_mib"
dtrain_train_rate() {
  local dtrain=$1 solver=$2 n=$3 w=$4 k=$5 batch=$6 base=$7 t_k env=()
  if [ "$n" -gt 0 ]; then
    env=(OMP_NUM_THREADS="$n" OPENBLAS_NUM_THREADS="$n")
  else
    env=(-u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS)
  fi
  env "${env[@]}" /usr/bin/time -v -o "$base.time" \
    "$dtrain" train --solver="$solver" --iterations="$((w + k + 1))" --threads="$n" \
    >"$base.log" 2>&1 || { echo "bench: dtrain failed, see $base.log" >&2; return 1; }
  t_k=$(steps_seconds "$base.log" "$w" "$((w + k))") ||
    { echo "bench: no display lines in $base.log" >&2; return 1; }
  awk -v k="$k" -v b="$batch" -v d="$t_k" -v rss="$(max_rss_mb "$base.time")" \
    'BEGIN { if (d <= 0) { print "nan", rss } else printf "%.2f %s\n", k * b / d, rss }'
}

# PyTorch's side (bench/torch_bench.py): W untimed and K timed steps of a net at N threads (0: its
# default, with OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and MKL_NUM_THREADS unset) in one
# setting (eager-nchw, eager-channels_last, compile-nchw, compile-channels_last); its line and
# stderr are BASE.log and BASE.err.
#   torch_train_rate PYTHON NET N W K SETTING BASE -> "img_per_s peak_rss_mib"
torch_train_rate() {
  local python=$1 net=$2 n=$3 w=$4 k=$5 setting=$6 base=$7 line flags=()
  case $setting in
    eager-*) ;; compile-*) flags+=(--compile) ;;
    *) echo "bench: unknown PyTorch setting '$setting'" >&2; return 1 ;;
  esac
  flags+=(--layout "${setting#*-}")
  local env=(-u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS -u MKL_NUM_THREADS)
  [ "$n" -gt 0 ] && env=(OMP_NUM_THREADS="$n" OPENBLAS_NUM_THREADS="$n")
  line=$(env "${env[@]}" $python bench/torch_bench.py "$net" \
    --threads "$n" --iters "$k" --warmup "$w" "${flags[@]}" 2>"$base.err") ||
    { echo "bench: torch_bench failed, see $base.err" >&2; return 1; }
  echo "$line" >"$base.log"
  echo "$line" | sed -E 's/.*img_per_s=([0-9.]+) peak_rss_mb=([0-9]+).*/\1 \2/'
}

# The larger of two numbers.
max_of() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > a ? b : a) }'; }
