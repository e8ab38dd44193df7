#!/bin/bash
# netns_cluster.sh up K | down | status: a cluster of K "hosts" on this machine for multi-host
# tests. Host i is the network namespace ${PREFIX}i with its own address $NET.(10+i) on eth0, a
# veth plugged into a bridge that lives in a namespace of its own, ${PREFIX}sw. Run commands on a
# host with on_host.sh, and MPI jobs with mpirun.sh.
#
# Safety: nothing is added to the root namespace and no namespace has a default route, so no
# packet for the test subnet can leave the machine.
#
# Environment: DTRAIN_NETNS_PREFIX (default dtn0-; it becomes part of host names, which Open MPI
# and hostname(1) allow only letters, digits, dots and hyphens) and DTRAIN_NETNS_NET (the /24 as
# three octets, default 10.231.0). Give each cluster that may run at the same time its own of both.
#
# `up` runs `down` first. `down` kills every process in the namespaces (orteds and ranks left on
# a cut-off host included, Slurm's daemons too), deletes them and removes their /etc/netns, Open
# MPI session and slurm_cluster.sh state directories; it is safe to run at any time.
set -u
PREFIX=${DTRAIN_NETNS_PREFIX:-dtn0-}
NET=${DTRAIN_NETNS_NET:-10.231.0}
SWITCH=${PREFIX}sw

namespaces() {
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${PREFIX}([0-9]+|sw)$" | sort -V || true
}

down() {
  local ns pids signal
  for signal in TERM KILL; do
    for ns in $(namespaces); do
      pids=$(ip netns pids "$ns" 2>/dev/null)
      # A stopped process does not act on SIGTERM until it is continued.
      [ -n "$pids" ] && kill -"$signal" $pids 2>/dev/null && kill -CONT $pids 2>/dev/null
    done
    [ "$signal" = TERM ] && [ -n "$(namespaces)" ] && sleep 0.3
  done
  for ns in $(namespaces); do ip netns del "$ns"; done
  # /tmp/slurm.*: slurm_cluster.sh's state
  rm -rf /etc/netns/"${PREFIX}"* /tmp/ompi."${PREFIX}"* /tmp/slurm."${PREFIX}"*
  return 0
}

# A TCP connection to a host behind a cut link (mpirun's to its daemon there, a rank's to a rank)
# lives through about 15 minutes of retransmissions, and mpirun waits that long; 3 retransmissions
# take seconds. IPv6 off: Open MPI is built with it, and the test subnet is IPv4 only. Both are
# per-namespace settings: the root namespace keeps its own.
configure_stack() {
  ip netns exec "$1" sysctl -qw net.ipv4.tcp_retries2=3 \
    net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
}

up() {
  local hosts=$1 i ns names="127.0.0.1 localhost"
  down
  set -e
  ip netns add "$SWITCH"
  ip -n "$SWITCH" link set lo up
  configure_stack "$SWITCH"
  ip -n "$SWITCH" link add br0 type bridge stp_state 0 forward_delay 0
  ip -n "$SWITCH" link set br0 up
  for ((i = 0; i < hosts; i++)); do names+=$'\n'"$NET.$((10 + i)) ${PREFIX}$i"; done
  for ((i = 0; i < hosts; i++)); do
    ns=${PREFIX}$i
    ip netns add "$ns"
    ip -n "$SWITCH" link add "p$i" type veth peer name eth0 netns "$ns"
    ip -n "$SWITCH" link set "p$i" master br0 up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$NET.$((10 + i))/24" dev eth0
    ip -n "$ns" link set eth0 up
    configure_stack "$ns"
    mkdir -p "/etc/netns/$ns"
    printf '%s\n' "$names" > "/etc/netns/$ns/hosts"  # on_host.sh mounts it on /etc/hosts
  done
  set +e
  # The bridge forwards at once (no STP); still, check that host 0 reaches every other host.
  for ((i = 1; i < hosts; i++)); do
    for try in $(seq 50); do
      ip netns exec "${PREFIX}0" ping -c1 -W1 -q "$NET.$((10 + i))" > /dev/null 2>&1 && break
      [ "$try" = 50 ] && { echo "netns_cluster: ${PREFIX}0 cannot reach ${PREFIX}$i" >&2; exit 1; }
      sleep 0.1
    done
  done
  echo "up: $hosts hosts ${PREFIX}0..${PREFIX}$((hosts - 1)) on $NET.0/24, bridge in $SWITCH"
}

status() {
  local ns
  for ns in $(namespaces); do
    echo "$ns: $(ip -n "$ns" -br addr show 2>/dev/null | awk '$1 != "lo" {print $1, $2, $3}' | xargs);" \
      "processes: $(ip netns pids "$ns" | xargs -r ps -o comm= -p | sort | uniq -c | xargs)"
  done
}

case "${1:-}" in
  up) [[ "${2:-}" =~ ^[1-9][0-9]?$ ]] || { echo "usage: $0 up K (1..99 hosts)" >&2; exit 2; }
      up "$2" ;;
  down) down; echo "down: $(namespaces | wc -l) namespaces left" ;;
  status) status ;;
  *) echo "usage: $0 up K | down | status" >&2; exit 2 ;;
esac
