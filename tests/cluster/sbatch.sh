#!/bin/bash
# sbatch.sh ARG...: `sbatch ARG...` on host 0 of a slurm_cluster.sh cluster, in the current
# directory, with the MPI settings of on_slurm_host.sh (sbatch passes them to the job and its
# srun to the ranks). Give every job a backstop (`timeout`, or sbatch's own --time).
exec "$(dirname "$0")/on_slurm_host.sh" sbatch "$@"
