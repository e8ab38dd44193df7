#!/usr/bin/env bash
# Installs a dtrain .deb on a brand-new Debian 12 root (scripts/fresh-machine.sh, nothing of
# dtrain's build there) and runs what it installed: `dtrain train` on a small net and data made
# with the installed Python module, then `import dtrain` with a forward pass, then
# `dtrain export onnx` of the trained net's deploy version. As root.
#   bash scripts/check-deb.sh PATH.deb
set -euo pipefail
cd "$(dirname "$0")/.."
deb=${1:?usage: bash scripts/check-deb.sh PATH.deb}
bash scripts/fresh-machine.sh --no-shared --with "$deb" -- bash -c '
set -euo pipefail
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /root/'"$(basename "$deb")"' >/dev/null
dtrain version
cd /tmp
/usr/bin/python3 - <<PY
import numpy as np, dtrain
rng = np.random.RandomState(1)
records = []
for i in range(64):
    image = rng.randint(0, 60, size=(1, 8, 8)).astype(np.uint8)
    image[0, 1 + 4 * (i % 2):4 + 4 * (i % 2), 2:6] = 250
    records.append((b"%08d" % i, dtrain.io.array_to_datum(image, i % 2)))
dtrain.io.write_lmdb("train_lmdb", records)
open("net.prototxt", "w").write("""
layer { name: "data" type: "Data" top: "data" top: "label"
  transform_param { scale: 0.00390625 } data_param { source: "train_lmdb" batch_size: 16 } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
  inner_product_param { num_output: 2 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
""")
open("solver.prototxt", "w").write("""net: "net.prototxt" base_lr: 0.1 lr_policy: "fixed"
max_iter: 40 display: 10 snapshot_after_train: true snapshot_prefix: "snap" solver_mode: CPU
""")
open("deploy.prototxt", "w").write("""
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 1 dim: 8 dim: 8 } } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 2 } }
layer { name: "prob" type: "Softmax" bottom: "ip" top: "prob" }
""")
PY
dtrain train --solver=solver.prototxt 2>&1 | grep -E "Iteration (0|40), loss|Snapshotting to binary"
/usr/bin/python3 -c "
import dtrain, numpy as np
net = dtrain.Net(\"net.prototxt\", \"snap_iter_40.caffemodel\", dtrain.TRAIN)
print(\"import dtrain:\", dtrain.__file__, \"loss at the trained weights:\", float(net.forward()[\"loss\"]))
"
dtrain export onnx --model=deploy.prototxt --weights=snap_iter_40.caffemodel --weights-strict \
  --output=model.onnx 2>&1 | grep -E "Wrote|outputs"
'
