#!/usr/bin/env bash
# Gradient-sync efficiency of data-parallel training on 2 hosts: two network-namespace hosts of
# this machine (tests/cluster/netns_cluster.sh), one rank each, their link rate-limited with tbf
# (netem is not in this kernel; 10 Gbit/s and faster cannot be emulated here, so 1 and 5 Gbit/s
# stand for a 10x slower cluster). For each net and rate, dtrain_sync_bench (bench/sync_bench.cc)
# measures the raw allreduce vs the bucketed exchange, the share of communication hidden behind
# backward, the scaling model's 2-node projection next to the measured iteration, and projects
# weak-scaling efficiency to 8/32/128 nodes at 25 and 100 Gbit/s. Needs root.
#
#   bash bench/sync_efficiency.sh                         # googlenet resnet50 alexnet, 1gbit 5gbit
#   NETS=googlenet RATES=1gbit bash bench/sync_efficiency.sh
#
# Prints each report; the JSON lines go to bench/out/sync_efficiency.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."

NETS=${NETS:-"googlenet resnet50 alexnet"}
RATES=${RATES:-"1gbit 5gbit"}
ITERATIONS=${ITERATIONS:-2}
REPEATS=${REPEATS:-3}
BUCKET_KB=${BUCKET_KB:-0}  # 0: dtrain's default bucket size
export DTRAIN_NETNS_PREFIX=dtbench- DTRAIN_NETNS_NET=10.231.250
OUT=bench/out
mkdir -p "$OUT"
[ "$(id -u)" -eq 0 ] || { echo "bench/sync_efficiency.sh: needs root (network namespaces)" >&2; exit 1; }
[ -x build/dtrain_sync_bench ] || bash scripts/build.sh >/dev/null

# The burst must grow with the rate: veth hands tbf 64 KB packets (cluster-harness.md §7).
declare -A BURST=([1gbit]=1mb [5gbit]=4mb)
shape() {  # both directions of every host's link
  local rate=$1 i
  for i in 0 1; do
    tc -n "${DTRAIN_NETNS_PREFIX}$i" qdisc replace dev eth0 root tbf rate "$rate" burst "${BURST[$rate]}" latency 10ms
    tc -n "${DTRAIN_NETNS_PREFIX}sw" qdisc replace dev "p$i" root tbf rate "$rate" burst "${BURST[$rate]}" latency 10ms
  done
}

trap 'tests/cluster/netns_cluster.sh down > /dev/null' EXIT
tests/cluster/netns_cluster.sh up 2
: > "$OUT/sync_efficiency.jsonl"
for rate in $RATES; do
  [ -n "${BURST[$rate]:-}" ] || { echo "unknown rate $rate (1gbit or 5gbit)" >&2; exit 1; }
  shape "$rate"
  for net in $NETS; do
    echo "== $net, 2 hosts, link $rate"
    tests/cluster/mpirun.sh --timeout 900 --host "${DTRAIN_NETNS_PREFIX}0:1,${DTRAIN_NETNS_PREFIX}1:1" \
      -np 2 -x OMP_NUM_THREADS=1 build/dtrain_sync_bench "bench/nets/$net.prototxt" \
      --iterations="$ITERATIONS" --repeats="$REPEATS" --threads=1 --link-gbit="${rate%gbit}" --bucket-kb="$BUCKET_KB" |
      tee "$OUT/sync_${net}_${rate}.txt" | grep -v '^JSON '
    grep '^JSON ' "$OUT/sync_${net}_${rate}.txt" | sed 's/^JSON //' >> "$OUT/sync_efficiency.jsonl"
  done
done
