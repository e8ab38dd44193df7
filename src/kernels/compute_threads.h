// The threads the kernels compute on: oneDNN's OpenMP pool and OpenBLAS's own.
//
// SetComputeThreads(n) gives both n threads and makes the calling thread and every OpenMP thread
// (where oneDNN's kernels and dtrain's parallel loops run) flush denormal floats to zero (the
// x86 MXCSR FTZ and DAZ bits). A float below 2^-126 costs a
// microcode assist on every instruction that touches it, on Intel CPUs about a hundred cycles:
// once training has driven some gradients that small (LeNet on its benchmark data after a few
// dozen iterations), oneDNN's kernels ran 5 times slower (609 against 3500 img/s). Flushing
// changes only values below 2^-126, the same way on every run, so results stay reproducible and
// independent of the thread count. Call it before training, from the thread that trains.
#pragma once

namespace dtrain::kernels {

void SetComputeThreads(int threads);

// What `dtrain train` computes on unless told: OMP_NUM_THREADS when the environment pins it (as
// batch schedulers do), else every core.
int DefaultComputeThreads();

}  // namespace dtrain::kernels
