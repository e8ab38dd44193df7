// The threads the kernels compute on: oneDNN's OpenMP pool and OpenBLAS's own.
//
// SetComputeThreads(n) gives both n threads and makes the calling thread and every OpenMP thread
// (where oneDNN's kernels and dtrain's parallel loops run) flush denormal floats to zero (the
// x86 MXCSR FTZ and DAZ bits). A float below 2^-126 costs a
// microcode assist on every instruction that touches it, on Intel CPUs about a hundred cycles:
// once training has driven some gradients that small (LeNet on its benchmark data after a few
// dozen iterations), oneDNN's kernels ran 5 times slower (609 against 3500 img/s). Flushing
// changes only values below 2^-126, the same way on every run and every thread. Call it before
// training, from the thread that trains.
//
// The thread count changes speed, and can change the last bits of results: some of oneDNN's
// kernels split a sum by thread (a convolution's weight gradient over the batch), so a rerun or a
// resumed run equals the first bit for bit at the same count (dtrain logs the one it chose).
#pragma once

#include <string>

namespace dtrain::kernels {

void SetComputeThreads(int threads);

// What dtrain computes on unless told, and why (for the log).
struct ThreadChoice {
  int threads = 1;
  std::string why;
};

// OMP_NUM_THREADS when the environment pins it (as batch schedulers do); else the usable cores
// (core/machine_cores.h: the affinity mask, a cgroup quota) less those that other processes keep
// busy, measured over 100 ms: a thread that shares its core with a busy process holds up every
// parallel region of the step (bench/README.md, "Sharing the machine": on 2 cores with one busy,
// ResNet-50 trains at 2.5 img/s on 2 threads and 3.6 on 1). Blocks for the measurement.
ThreadChoice DefaultComputeThreads();

}  // namespace dtrain::kernels
