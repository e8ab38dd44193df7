#!/bin/bash
# srun.sh ARG...: `srun ARG...` on host 0 of a slurm_cluster.sh cluster, with the MPI settings of
# on_slurm_host.sh. srun has no backstop of its own below a minute: give every job `timeout`.
exec "$(dirname "$0")/on_slurm_host.sh" srun "$@"
