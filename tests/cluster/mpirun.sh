#!/bin/bash
# mpirun.sh ARG...: `mpirun ARG...` started on host 0 of a netns_cluster.sh cluster (the same
# DTRAIN_NETNS_PREFIX and DTRAIN_NETNS_NET), which reaches the other hosts through rsh_agent.sh.
# mpirun must run inside a host namespace: the daemons on the other hosts connect back to it.
#
# The settings every job needs are environment defaults, so ARG may still override them (an MCA
# parameter may appear only once on the command line):
# - MPI traffic only on the test subnet;
# - ranks outnumber the cores, so they yield instead of spinning while they wait, and are not
#   bound to cores (the hosts share this machine's);
# - TCP keepalive on mpirun's links to its daemons, so that mpirun notices a host behind a cut
#   link within seconds (the other half is netns_cluster.sh's tcp_retries2) and can exit.
# Give every job `--timeout SECONDS` as a backstop.
set -u
PREFIX=${DTRAIN_NETNS_PREFIX:-dtn0-}
NET=${DTRAIN_NETNS_NET:-10.231.0}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_plm_rsh_agent=${OMPI_MCA_plm_rsh_agent:-$(cd "$(dirname "$0")" && pwd)/rsh_agent.sh}
export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-$NET.0/24}
export OMPI_MCA_oob_tcp_if_include=${OMPI_MCA_oob_tcp_if_include:-$NET.0/24}
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
# Every host is this one machine: bound by default, host i's first rank would sit on core 0 like
# every other host's, and all ranks would share that core.
export OMPI_MCA_hwloc_base_binding_policy=${OMPI_MCA_hwloc_base_binding_policy:-none}
export OMPI_MCA_oob_tcp_keepalive_time=${OMPI_MCA_oob_tcp_keepalive_time:-3}
export OMPI_MCA_oob_tcp_keepalive_intvl=${OMPI_MCA_oob_tcp_keepalive_intvl:-1}
export OMPI_MCA_oob_tcp_keepalive_probes=${OMPI_MCA_oob_tcp_keepalive_probes:-3}
exec "$(dirname "$0")/on_host.sh" "${PREFIX}0" mpirun "$@"
