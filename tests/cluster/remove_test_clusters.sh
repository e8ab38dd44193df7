#!/bin/bash
# remove_test_clusters.sh: tears down every cluster the MultiHost tests may have left behind (their
# prefixes are dtn<k>-), for ctest's cleanup fixture. Each test tears its own cluster down even when
# it fails; this covers a test binary that crashed or was killed. Does nothing where network
# namespaces are unavailable.
[ "$(id -u)" = 0 ] && command -v ip > /dev/null || exit 0
prefixes=$( { ip netns list 2>/dev/null | awk '{print $1}'; ls /etc/netns 2>/dev/null
  ls /tmp 2>/dev/null | sed -nE 's/^slurm\.(dtn[0-9]+-)$/\10/p'; } |
  sed -nE 's/^(dtn[0-9]+-)([0-9]+|sw)$/\1/p' | sort -u)
for prefix in $prefixes; do
  DTRAIN_NETNS_PREFIX=$prefix "$(dirname "$0")/netns_cluster.sh" down
done
echo "remove_test_clusters: removed" ${prefixes:-nothing}  # unquoted: one line
