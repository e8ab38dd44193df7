#!/usr/bin/env python3
"""Times PyTorch training steps of one benchmark net (bench/torch_nets.py) on the CPU.

A step is what `dtrain train` does per iteration: forward, backward and an SGD momentum update
(momentum 0.9, weight decay as in bench/nets/NET_solver.prototxt), on one synthetic batch held in
memory (gaussian images, label 0, made once). After --warmup untimed steps, --iters steps are
timed together with time.perf_counter.

Settings: --layout channels_last converts the model and the batch to torch.channels_last (NHWC,
where oneDNN's fastest CPU convolutions run); --compile wraps the model in torch.compile
(TorchInductor's C++ code for the CPU; the warmup steps include its compilation).

Threads: OMP_NUM_THREADS and OPENBLAS_NUM_THREADS are set to --threads before torch is imported
(PyTorch's fully connected layers may run in OpenBLAS, whose threads torch.set_num_threads does not
limit) and torch.set_num_threads(--threads) is called. --threads 0 leaves all of that as PyTorch
finds it (its default: every core), and the output line gives the count it used.

Output, one line:  torch net=NET threads=N iters=K setting=S img_per_s=X peak_rss_mb=Y
(S: eager or compile, then nchw or channels_last, e.g. eager-channels_last)
(peak_rss_mb: resource.getrusage(RUSAGE_SELF).ru_maxrss, the whole process's peak, in MiB).

    bench/.venv/bin/python bench/torch_bench.py googlenet --threads 2 --iters 3 --warmup 1
"""

import argparse
import os
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("net", choices=["lenet", "cifar10_quick", "cifar10_full", "googlenet",
                                        "resnet50", "mobilenet_v2"])
    parser.add_argument("--layout", choices=["nchw", "channels_last"], default="nchw")
    parser.add_argument("--compile", action="store_true", help="torch.compile the model")
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--iters", type=int, required=True, help="timed training steps")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps first")
    args = parser.parse_args()
    if args.threads < 0 or args.iters < 1 or args.warmup < 0:
        parser.error("--iters must be positive, --threads and --warmup not negative")

    if args.threads > 0:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)
    import resource
    import time

    import torch
    import torch.nn.functional as F

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch_nets

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    else:
        args.threads = torch.get_num_threads()
    torch.manual_seed(1701)
    # base_lr and weight_decay of bench/nets/NET_solver.prototxt.
    lr, weight_decay = {"lenet": (0.01, 5e-4), "cifar10_quick": (1e-3, 4e-3),
                        "cifar10_full": (1e-3, 4e-3), "googlenet": (0.01, 2e-4),
                        "resnet50": (0.01, 1e-4), "mobilenet_v2": (0.01, 1e-4)}[args.net]

    model, shape, loss_weights = torch_nets.NETS[args.net]()
    model.train()
    data = torch.randn(shape)
    if args.layout == "channels_last":
        model = model.to(memory_format=torch.channels_last)
        data = data.contiguous(memory_format=torch.channels_last)
    label = torch.zeros(shape[0], dtype=torch.long)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9,
                                weight_decay=weight_decay)
    forward = torch.compile(model) if args.compile else model

    def step():
        optimizer.zero_grad(set_to_none=True)
        outputs = forward(data)
        loss = sum(w * F.cross_entropy(o, label) for w, o in zip(loss_weights, outputs))
        loss.backward()
        optimizer.step()
        return loss

    for _ in range(args.warmup):
        step()
    start = time.perf_counter()
    for _ in range(args.iters):
        loss = step()
    seconds = time.perf_counter() - start
    if not torch.isfinite(loss):
        sys.exit(f"torch_bench: loss is {loss.item()} for {args.net}")

    img_per_s = args.iters * shape[0] / seconds
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    setting = ("compile" if args.compile else "eager") + "-" + args.layout
    print(f"torch net={args.net} threads={args.threads} iters={args.iters} setting={setting} "
          f"img_per_s={img_per_s:.2f} peak_rss_mb={peak_rss_mb:.0f}", flush=True)


if __name__ == "__main__":
    main()
