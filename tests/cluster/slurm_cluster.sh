#!/bin/bash
# slurm_cluster.sh up | down | status: a Slurm cluster on the hosts of a netns_cluster.sh cluster
# (the same DTRAIN_NETNS_PREFIX and DTRAIN_NETNS_NET), which must be up. munged and slurmctld run
# on host 0, one slurmd on every host (node name = host name). Start jobs with srun.sh.
#
# Everything (slurm.conf, munge key and socket, state, spool, logs) is in the state directory
# /tmp/slurm.${PREFIX}; clients find the cluster through SLURM_CONF=/tmp/slurm.${PREFIX}/slurm.conf.
# Every daemon runs inside a host namespace, so netns_cluster.sh's `down` stops them too.
#
# `up` runs `down` first and returns once `sinfo` shows every node idle. `down` stops the daemons
# and the jobs' step daemons and removes the state directory; it is safe to run at any time.
set -u
PREFIX=${DTRAIN_NETNS_PREFIX:-dtn0-}
NET=${DTRAIN_NETNS_NET:-10.231.0}
D=/tmp/slurm.${PREFIX}
HERE=$(cd "$(dirname "$0")" && pwd)

hosts() {
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${PREFIX}[0-9]+$" | sort -V || true
}

# Slurm's and munge's processes on the hosts (jobs' ranks die with their slurmstepd).
daemons() {
  local ns
  for ns in $(hosts); do ip netns pids "$ns"; done |
    xargs -r ps -o pid=,comm= -p |
    awk '$2 ~ /^(munged|slurmctld|slurmd|slurmstepd|srun)$/ {print $1}'
}

down() {
  local pids signal
  for signal in TERM KILL; do
    pids=$(daemons)
    [ -n "$pids" ] && kill -"$signal" $pids 2>/dev/null && kill -CONT $pids 2>/dev/null
    [ "$signal" = TERM ] && [ -n "$pids" ] && sleep 0.3
  done
  rm -rf "$D"
  return 0
}

write_config() {
  local last=$1
  cat > "$D/slurm.conf" <<EOF
ClusterName=dtrain
SlurmctldHost=${PREFIX}0($NET.10)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge.sock
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
# srun --mpi=pmix makes TmpFS/spmix_appdir_<uid>_<job>.<step> on every node: one TmpFS per node.
TmpFS=$D/tmp/%n
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd-%n.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
# The hosts all share this machine's cores; each says it has 2.
SlurmdParameters=config_overrides
MpiDefault=pmix
# A rank that dies ends the step; by default the others would wait in their collective forever.
KillOnBadExit=1
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
InactiveLimit=0
KillWait=5
MinJobAge=30
NodeName=${PREFIX}[0-$last] NodeAddr=$NET.[10-$((10 + last))] CPUs=2 State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
}

up() {
  local n i state=""
  n=$(hosts | wc -l)
  if [ "$n" = 0 ]; then
    echo "slurm_cluster: no hosts ${PREFIX}0.. (netns_cluster.sh up first)" >&2
    exit 1
  fi
  down
  mkdir -p "$D/state"
  for ((i = 0; i < n; i++)); do mkdir -p "$D/spool/${PREFIX}$i" "$D/tmp/${PREFIX}$i"; done
  chmod 755 "$D"  # munged refuses a socket in a directory that not everyone may enter
  head -c 1024 /dev/urandom > "$D/munge.key" && chmod 400 "$D/munge.key"
  write_config $((n - 1))
  # munged as root needs --force. Started on a host (not through `ip netns exec`, which mounts a
  # /sys of its own: slurmd needs the real /sys/fs/cgroup even with proctrack/linuxproc).
  "$HERE/on_host.sh" "${PREFIX}0" /usr/sbin/munged --force --socket="$D/munge.sock" \
    --key-file="$D/munge.key" --pid-file="$D/munged.pid" --log-file="$D/munged.log" \
    --seed-file="$D/munged.seed" || { echo "slurm_cluster: munged failed" >&2; exit 1; }
  "$HERE/on_host.sh" "${PREFIX}0" /usr/sbin/slurmctld -f "$D/slurm.conf" ||
    { echo "slurm_cluster: slurmctld failed" >&2; tail -5 "$D/slurmctld.log" >&2; exit 1; }
  for ((i = 0; i < n; i++)); do
    if ! "$HERE/on_host.sh" "${PREFIX}$i" /usr/sbin/slurmd -f "$D/slurm.conf" -N "${PREFIX}$i"; then
      echo "slurm_cluster: slurmd on ${PREFIX}$i failed" >&2
      tail -5 "$D/slurmd-${PREFIX}$i.log" >&2
      exit 1
    fi
  done
  for try in $(seq 100); do
    state=$(SLURM_CONF=$D/slurm.conf "$HERE/on_host.sh" "${PREFIX}0" sinfo -h -o '%T %D' 2>&1 |
      xargs)
    [ "$state" = "idle $n" ] && break
    sleep 0.1
  done
  if [ "$state" != "idle $n" ]; then
    echo "slurm_cluster: nodes not idle after 10 s: $state" >&2
    exit 1
  fi
  echo "slurm up: $n nodes idle (SLURM_CONF=$D/slurm.conf)"
}

case "${1:-}" in
  up) up ;;
  down) down; echo "slurm down: $(daemons | wc -w) daemons left" ;;
  status) SLURM_CONF=$D/slurm.conf "$HERE/on_host.sh" "${PREFIX}0" sinfo ;;
  *) echo "usage: $0 up | down | status" >&2; exit 2 ;;
esac
