#!/usr/bin/env python3
"""Intel Caffe's own model files through dtrain (what the Intel Caffe support claims).

    python3 bench/intel_models.py CAFFE_ROOT [--dtrain build/dtrain] [--out bench/out/intel]

CAFFE_ROOT is a checkout of intel/caffe (its models/intel_optimized_models is what is read; the
files name their nets relative to that root, so everything runs from it). Two parts:

  check  every .prototxt under models/intel_optimized_models through `dtrain check` (--solver for
         solvers, --model for nets): PASS, or FAIL with the first line of the error;
  train  every solver under benchmark/ and multinode/ whose net has no detection layer trains 3
         iterations with a batch of 2 (or the net's BatchNorm sub-batch, bn_stats_batch_size, when
         larger), its data layers replaced by DummyData of the shapes they would produce (the
         crop size, or the DummyData/Input shapes the file already has).

Prints one line per file and the totals; writes the same to OUT/check.txt and OUT/train.txt.
Nothing here is a test: it needs Intel's files, which users of dtrain need not have.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

DATA_TYPES = {"Data", "ImageData", "HDF5Data", "WindowData", "MemoryData"}
SOLVER_FIELDS = re.compile(r"^\s*(base_lr|net|train_net|net_param|train_net_param)\s*[:{]", re.M)


def blocks(text):
    """(start, end) of each top-level `layer { ... }` block, skipping strings and comments."""
    spans, depth, i, start = [], 0, 0, None
    while i < len(text):
        c = text[i]
        if c == "#":
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        if c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == "{":
            if depth == 0:
                m = re.search(r"(layers?)\s*:?\s*$", text[:i])
                start = m.start() if m else None
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and start is not None:
                spans.append((start, i + 1))
                start = None
        i += 1
    return spans


def field(block, name):
    m = re.search(r"\b%s\s*:\s*\"?([^\"\s}]+)\"?" % name, block)
    return m.group(1) if m else None


def dummy_layer(block, batch):
    """A DummyData layer with the name and tops of data layer `block`."""
    name = field(block, "name") or "data"
    tops = re.findall(r"\btop\s*:\s*\"([^\"]+)\"", block)
    crop = int(field(block, "crop_size") or 0)
    size = crop or int(field(block, "new_height") or 0) or 224
    channels = 1 if re.search(r"\bis_color\s*:\s*false", block) else 3
    include = re.search(r"\binclude\s*:?\s*\{[^}]*\}", block)
    shapes = ["shape { dim: %d dim: %d dim: %d dim: %d }" % (batch, channels, size, size)]
    shapes += ["shape { dim: %d }" % batch] * (len(tops) - 1)
    fillers = ['data_filler { type: "gaussian" std: 1 }']
    fillers += ['data_filler { type: "constant" value: 0 }'] * (len(tops) - 1)
    return 'layer {\n  name: "%s"\n  type: "DummyData"\n%s%s  dummy_data_param {\n    %s\n    %s\n  }\n}' % (
        name, "".join('  top: "%s"\n' % t for t in tops),
        ("  " + include.group(0) + "\n") if include else "",
        "\n    ".join(fillers), "\n    ".join(shapes))


def dummified(net_text, batch):
    out, last = [], 0
    for start, end in blocks(net_text):
        block = net_text[start:end]
        out.append(net_text[last:start])
        kind = field(block, "type")
        if kind in DATA_TYPES:
            out.append(dummy_layer(block, batch))
        elif kind == "DummyData":
            out.append(re.sub(r"(shape\s*\{\s*dim\s*:\s*)\d+", r"\g<1>%d" % batch, block))
        elif kind == "Input":
            out.append(re.sub(r"(shape\s*\{\s*dim\s*:\s*)\d+", r"\g<1>%d" % batch, block))
        else:
            out.append(block)
        last = end
    out.append(net_text[last:])
    return "".join(out)


def run(cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace",
                          timeout=1800)
    return proc.returncode, proc.stdout, proc.stderr


def first_error(stderr):
    lines = [l for l in stderr.splitlines() if "error" in l.lower()]
    return (lines[0] if lines else stderr.strip().splitlines()[-1] if stderr.strip() else "")[:400]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--dtrain", default="build/dtrain")
    ap.add_argument("--out", default="bench/out/intel")
    ap.add_argument("--parts", default="check,train")
    args = ap.parse_args()
    dtrain = os.path.abspath(args.dtrain)
    os.makedirs(args.out, exist_ok=True)
    root = os.path.abspath(args.root)
    models = "models/intel_optimized_models"
    files = sorted(os.path.relpath(os.path.join(d, f), root)
                   for d, _, names in os.walk(os.path.join(root, models)) for f in names
                   if f.endswith(".prototxt"))
    if "check" in args.parts:
        passed, lines = 0, []
        for f in files:
            text = open(os.path.join(root, f), errors="replace").read()
            flag = "--solver" if SOLVER_FIELDS.search(text) else "--model"
            rc, _, err = run([dtrain, "check", "%s=%s" % (flag, f)], root)
            passed += rc == 0
            lines.append("%s %s%s" % ("PASS" if rc == 0 else "FAIL", f,
                                      "" if rc == 0 else " :: " + first_error(err)))
            print(lines[-1], flush=True)
        lines.append("check: %d of %d pass" % (passed, len(files)))
        print(lines[-1])
        open(os.path.join(args.out, "check.txt"), "w").write("\n".join(lines) + "\n")
    if "train" in args.parts:
        trained, tried, lines = 0, 0, []
        work = tempfile.mkdtemp(prefix="intel-train-")
        for f in files:
            parts = f.split("/")
            if parts[2] not in ("benchmark", "multinode"):
                continue
            solver = open(os.path.join(root, f), errors="replace").read()
            if not SOLVER_FIELDS.search(solver):
                continue
            net = field(solver, "net") or field(solver, "train_net")
            if net is None or not os.path.exists(os.path.join(root, net)):
                lines.append("SKIP %s :: its net %s does not exist in the repository" % (f, net))
                print(lines[-1], flush=True)
                continue
            net_text = open(os.path.join(root, net), errors="replace").read()
            if re.search(r'type\s*:\s*"(PriorBox|MultiBoxLoss|DetectionOutput|ROIPooling|Python|'
                         r'AnnotatedData|Reorg|RegionLoss)"', net_text):
                lines.append("SKIP %s :: detection (refused by name)" % f)
                print(lines[-1], flush=True)
                continue
            tried += 1
            tag = f.replace("/", "_")
            net_copy = os.path.join(work, tag + ".net.prototxt")
            # The smallest batch its BatchNorm statistics over sub-batches allow (at least 2).
            sub_batch = [int(v) for v in re.findall(
                r"\b(?:bn_)?stats_batch_size\s*:\s*(\d+)", net_text)]
            batch = max([2] + sub_batch)
            open(net_copy, "w").write(dummified(net_text, batch))
            kept = [l for l in solver.splitlines()
                    if not re.match(r"\s*(net|train_net|test_iter|test_interval|snapshot|"
                                    r"snapshot_prefix|max_iter|test_initialization|display)\s*:", l)]
            kept += ['net: "%s"' % net_copy, "max_iter: 3", "display: 1", "snapshot: 0",
                     'snapshot_prefix: "%s"' % os.path.join(work, tag),
                     "snapshot_after_train: false"]
            solver_copy = os.path.join(work, tag + ".solver.prototxt")
            open(solver_copy, "w").write("\n".join(kept) + "\n")
            rc, out, err = run([dtrain, "train", "--solver=" + solver_copy], root)
            losses = re.findall(r"Iteration (\d+).*loss = ([-+0-9.eEnaif]+)", err + out)
            trained += rc == 0
            lines.append("%s %s%s" % ("TRAINED" if rc == 0 else "FAIL", f,
                                      (" :: batch %d, losses " % batch +
                                       ", ".join(l for _, l in losses[:4]))
                                      if rc == 0 else " :: " + first_error(err)))
            print(lines[-1], flush=True)
        lines.append("train: %d of %d solvers train 3 iterations" % (trained, tried))
        print(lines[-1])
        open(os.path.join(args.out, "train.txt"), "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
