#!/bin/bash
# sbatch.sh ARG...: `sbatch ARG...` run on host 0 of a slurm_cluster.sh cluster (the same
# DTRAIN_NETNS_PREFIX and DTRAIN_NETNS_NET), in the current directory. sbatch passes its
# environment to the job (and the job's srun to the ranks), so the MPI settings of srun.sh are set
# here too. Give every job a backstop (`timeout`, or sbatch's own --time).
set -u
PREFIX=${DTRAIN_NETNS_PREFIX:-dtn0-}
NET=${DTRAIN_NETNS_NET:-10.231.0}
export SLURM_CONF=/tmp/slurm.${PREFIX}/slurm.conf
export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-$NET.0/24}
export OMPI_MCA_oob_tcp_if_include=${OMPI_MCA_oob_tcp_if_include:-$NET.0/24}
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
export OMPI_MCA_hwloc_base_binding_policy=${OMPI_MCA_hwloc_base_binding_policy:-none}
exec "$(dirname "$0")/on_host.sh" "${PREFIX}0" sbatch "$@"
