"""Reads a `dtrain train --tensorboard=DIR` run with TensorBoard's own EventAccumulator and checks
every scalar against the run's --metrics file: the same tags at the same steps with the same
values (the metrics' numbers rounded to float32, as the events store them). Prints one line per
tag and exits 1 on any difference.

    python tensorboard_check.py RUN_DIR METRICS.jsonl
"""
import json
import sys

import numpy as np
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


def expected_scalars(metrics_path):
    """tag -> [(step, value)] as dtrain's event writer names them (report/tensorboard_events.h).

    A restarted job goes back to the iteration it resumed from: as TensorBoard does with steps
    that go back (purge_orphaned_data), the events the restart redoes replace the first ones."""
    scalars = {}
    latest = [-1]

    def add(tag, step, value):
        if step < latest[0]:
            for values in scalars.values():
                values[:] = [(s, v) for s, v in values if s < step]
        latest[0] = step
        scalars.setdefault(tag, []).append((step, float(np.float32(value))))

    for line in open(metrics_path):
        event = json.loads(line)
        step = event["iter"]
        if event["event"] == "train":
            add("train/loss", step, event["loss"])
            add("train/learning_rate", step, event["lr"])
            add("train/images_per_second", step, event["images_per_s"])
            if "communication_wait_share" in event:
                add("train/communication_wait_share", step, event["communication_wait_share"])
            for name, value in event.get("outputs", {}).items():
                add("train/output/" + name, step, value)
        elif event["event"] == "test":
            group = "test/" if event["net"] == 0 else "test_net%d/" % event["net"]
            for name, value in event["scores"].items():
                add(group + name, step, value)
        elif event["event"] == "restart":
            add("job/restart", step, event["restart"])
    return scalars


def main():
    run_dir, metrics_path = sys.argv[1], sys.argv[2]
    accumulator = EventAccumulator(run_dir, size_guidance={"scalars": 0})
    accumulator.Reload()
    read = {tag: [(e.step, e.value) for e in accumulator.Scalars(tag)]
            for tag in accumulator.Tags()["scalars"]}
    expected = expected_scalars(metrics_path)
    failed = False
    for tag in sorted(set(read) | set(expected)):
        got, want = read.get(tag, []), expected.get(tag, [])
        same = got == want
        failed |= not same
        print("%s %s: %d read, %d in the metrics file" % ("ok" if same else "DIFFERS", tag,
                                                          len(got), len(want)))
        if not same:
            print("  read:     %s\n  expected: %s" % (got[:5], want[:5]))
    total = sum(len(v) for v in read.values())
    print("%d scalars under %d tags" % (total, len(read)))
    return 1 if failed or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
