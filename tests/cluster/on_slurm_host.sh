#!/bin/bash
# on_slurm_host.sh CMD [ARG...]: a Slurm client command (srun, sbatch, salloc) run on host 0 of a
# slurm_cluster.sh cluster (the same DTRAIN_NETNS_PREFIX and DTRAIN_NETNS_NET). Slurm passes its
# environment on to the job's ranks, so the settings every MPI job needs on these hosts are set
# here as defaults, as in mpirun.sh: MPI traffic only on the test subnet, ranks that yield while
# they wait and are not bound to cores. Give every job a backstop (`timeout`, or sbatch's --time).
set -u
PREFIX=${DTRAIN_NETNS_PREFIX:-dtn0-}
NET=${DTRAIN_NETNS_NET:-10.231.0}
export SLURM_CONF=/tmp/slurm.${PREFIX}/slurm.conf
export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-$NET.0/24}
export OMPI_MCA_oob_tcp_if_include=${OMPI_MCA_oob_tcp_if_include:-$NET.0/24}
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
export OMPI_MCA_hwloc_base_binding_policy=${OMPI_MCA_hwloc_base_binding_policy:-none}
exec "$(dirname "$0")/on_host.sh" "${PREFIX}0" "$@"
