#!/bin/bash
# on_host.sh HOST CMD [ARG...]: runs CMD "on" HOST, one host of a netns_cluster.sh cluster: in
# its network namespace, with its own hostname (a UTS namespace: Open MPI names shared-memory
# segments after the hostname, so ranks on different hosts must not share one) and its
# /etc/netns/HOST/hosts mounted on /etc/hosts (in a private mount namespace, so nothing leaks).
# Unlike `ip netns exec`, /sys is left as it is. Fails when HOST is not a namespace, so a command
# can never run in the root namespace by mistake.
set -u
host=${1:?usage: on_host.sh HOST CMD [ARG...]}
shift
[ -e "/run/netns/$host" ] || { echo "on_host.sh: no host namespace '$host'" >&2; exit 1; }
exec nsenter --net="/run/netns/$host" unshare --uts --mount /bin/sh -c '
  host=$1; shift
  hostname "$host" || exit 1
  if [ -f "/etc/netns/$host/hosts" ]; then mount --bind "/etc/netns/$host/hosts" /etc/hosts || exit 1; fi
  exec "$@"' on_host "$host" "$@"
