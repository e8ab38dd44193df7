#!/bin/bash
# rsh_agent.sh [ssh options] HOST COMMAND...: Open MPI's remote-launch agent for a
# netns_cluster.sh cluster (mpirun --mca plm_rsh_agent, set by mpirun.sh). Where Open MPI would
# ssh to HOST to start its daemon, this enters HOST's namespace instead, so no sshd is needed.
# Like ssh, it joins COMMAND into one string for `sh -c`: Open MPI sends shell syntax.
while [ $# -gt 0 ]; do
  case "$1" in
    -x | -n | -T) shift ;;
    -l) shift 2 ;;
    *) break ;;
  esac
done
host=$1
shift
exec "$(dirname "$0")/on_host.sh" "$host" /bin/sh -c "$*"
