"""Runs an ONNX model in ONNX Runtime (the test oracle of `dtrain export onnx`, from PyPI in
.venv-oracles): reads the inputs from an .npz file (one array per graph input, by name), writes
every graph output to another .npz file, by name.

    .venv-oracles/bin/python tests/tools/onnx_runtime_run.py MODEL.onnx INPUTS.npz OUTPUTS.npz
"""

import sys

import numpy as np
import onnxruntime


def main():
    model, inputs_path, outputs_path = sys.argv[1:4]
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    inputs = dict(np.load(inputs_path))
    names = [o.name for o in session.get_outputs()]
    results = session.run(names, inputs)
    np.savez(outputs_path, **dict(zip(names, results)))
    print("onnxruntime %s ran %s: %s" % (onnxruntime.__version__, model, ", ".join(
        "%s %s" % (n, "x".join(map(str, r.shape))) for n, r in zip(names, results))))


if __name__ == "__main__":
    main()
