#!/usr/bin/env bash
# Open MPI's mpirun for `dtrain launch --mpirun=` in the hostile tests: ranks on this machine, as
# root where the tests run as root.
exec mpirun --allow-run-as-root --oversubscribe "$@"
