"""The float64 oracle of LARS (both trust_ratio_form values) and LAMB, for
tests/solver/trust_ratio_test.cc.

Usage: trust_ratio_oracle.py CONFIG.json INPUT.bin OUTPUT.bin

CONFIG names the rule and its settings and, per learnable blob, its shape, lr_mult and
decay_mult. INPUT holds, per iteration and per blob in net order, float32: the weights the update
saw (after that iteration's forward pass), then the gradient (summed over iter_size passes, as the
solver has it before clipping). The oracle starts from the first iteration's weights and keeps its
own weights and history, in float64; a blob with lr_mult 0 takes the weights the update saw
(BatchNorm's forward pass changes its statistics, no update does). OUTPUT: per iteration and per
blob, float64, the weights after that iteration's update.

The formulas are those of docs/solver.md, written here from the papers: LARS (You, Gitman and
Ginsburg 2017, Algorithm 1) as Intel Caffe's sgd_solver.cpp applies it, and LAMB (You et al.
2019, Algorithm 2).
"""
import json
import sys

import numpy as np


def main(config_path, input_path, output_path):
    cfg = json.load(open(config_path))
    blobs = cfg["blobs"]
    iters = cfg["iters"]
    raw = np.fromfile(input_path, dtype=np.float32).astype(np.float64)
    seen, grads, pos = [], [], 0
    for _ in range(iters):
        w_t, g_t = [], []
        for b in blobs:
            n = int(np.prod(b["shape"], dtype=np.int64))
            w_t.append(raw[pos:pos + n].reshape(b["shape"]))
            pos += n
            g_t.append(raw[pos:pos + n].reshape(b["shape"]))
            pos += n
        seen.append(w_t)
        grads.append(g_t)
    assert pos == raw.size, (pos, raw.size)

    lamb = cfg["type"] == "LAMB"
    layerwise = cfg["form"] == "LAYERWISE"
    wd = cfg["weight_decay"]
    w = [x.copy() for x in seen[0]]
    first = [np.zeros_like(x) for x in w]   # SGD's momentum history, or LAMB's m
    second = [np.zeros_like(x) for x in w]  # LAMB's v
    out = []
    for t in range(iters):
        rate = cfg["base_lr"] * cfg["gamma"] ** (t // cfg["stepsize"])
        g = [x.copy() for x in grads[t]]
        norm = np.sqrt(sum(float((x * x).sum()) for x in g))
        if cfg["clip_gradients"] >= 0 and norm > cfg["clip_gradients"]:
            g = [x * (cfg["clip_gradients"] / norm) for x in g]
        for i, b in enumerate(blobs):
            lr_mult, decay_mult = b["lr_mult"], b["decay_mult"]
            if lr_mult == 0:
                w[i] = seen[t][i].copy()
            exempt = layerwise and len(b["shape"]) < 2
            decay = 0.0 if exempt else wd * decay_mult
            w_norm = np.linalg.norm(w[i])
            if not lamb:
                g_norm = np.linalg.norm(g[i])
                # Intel's form: the solver's weight_decay in the ratio; LAYERWISE: the blob's.
                ratio_decay = decay if layerwise else wd
                ratio = 1.0
                if w_norm > 0 and g_norm > 0:
                    ratio = cfg["local_gw_ratio"] * w_norm / (g_norm + ratio_decay * w_norm)
                if layerwise:
                    mult = lr_mult * (1.0 if exempt else ratio)
                else:
                    mult = ratio if lr_mult > 0 else lr_mult
                first[i] = rate * mult * (g[i] + decay * w[i]) + cfg["momentum"] * first[i]
                w[i] = w[i] - first[i]
            else:
                b1, b2 = cfg["momentum"], cfg["momentum2"]
                first[i] = b1 * first[i] + (1 - b1) * g[i]
                second[i] = b2 * second[i] + (1 - b2) * g[i] * g[i]
                m_hat = first[i] / (1 - b1 ** (t + 1))
                v_hat = second[i] / (1 - b2 ** (t + 1))
                r = m_hat / (np.sqrt(v_hat) + cfg["delta"]) + decay * w[i]
                r_norm = np.linalg.norm(r)
                ratio = 1.0
                if not exempt and w_norm > 0 and r_norm > 0:
                    ratio = w_norm / r_norm
                mult = lr_mult if layerwise else (1.0 if lr_mult > 0 else lr_mult)
                w[i] = w[i] - rate * mult * ratio * r
        out.append([x.copy() for x in w])
    np.concatenate([x.ravel() for step in out for x in step]).astype(np.float64).tofile(
        output_path)


if __name__ == "__main__":
    main(*sys.argv[1:4])
