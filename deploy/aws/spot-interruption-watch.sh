#!/usr/bin/env bash
# On an EC2 spot instance: waits for the two-minute interruption notice and then sends SIGTERM to
# this instance's `dtrain train` processes. The job snapshots and stops within one iteration (every
# rank at the same one), the signalled rank names its host, and `dtrain launch --max-restarts`
# restarts the job from that snapshot without this host (docs/aws.md, "Spot instances").
#
#   nohup bash spot-interruption-watch.sh > /var/log/dtrain-spot-watch.log 2>&1 &
#
# The notice comes from the instance metadata service (IMDSv2: a session token first, then
# /latest/meta-data/spot/instance-action, which answers 404 until EC2 schedules the interruption).
# Knobs: DTRAIN_IMDS (the service's address), INTERVAL (seconds between polls).
set -u
IMDS=${DTRAIN_IMDS:-http://169.254.169.254}
INTERVAL=${INTERVAL:-5}

while true; do
  token=$(curl -s -m 2 -X PUT "$IMDS/latest/api/token" \
    -H "X-aws-ec2-metadata-token-ttl-seconds: 300" || true)
  notice=$(curl -s -m 2 -f -H "X-aws-ec2-metadata-token: $token" \
    "$IMDS/latest/meta-data/spot/instance-action" || true)
  if [ -n "$notice" ]; then
    echo "$(date -u +%FT%TZ) spot interruption notice: $notice; SIGTERM to dtrain train"
    # The dtrain processes whose command is `train` (not mpirun's or a shell's line naming it).
    for pid in $(pgrep -x dtrain); do
      command=$(tr '\0' '\n' < "/proc/$pid/cmdline" 2>/dev/null | sed -n 2p)
      [ "$command" = train ] && kill -TERM "$pid" && echo "SIGTERM to pid $pid"
    done
    exit 0
  fi
  sleep "$INTERVAL"
done
