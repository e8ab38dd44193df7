// Parallel loops over the rows of oneDNN's channel-blocked layouts (a row: one image's block of
// channels, row % blocks its block), for dtrain's own kernels on those layouts.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dtrain::blocked {

// body(row) for every row, each thread's part a contiguous range in a static order.
template <typename Body>
void ForRows(int64_t rows, Body body) {
#pragma omp parallel for schedule(static)
  for (int64_t row = 0; row < rows; ++row) body(row);
}

// Totals over the batch of what row_sums(row, sums) adds for each row to its block's per_block
// sums: each thread into partial sums of its own, added up in a fixed order, so that reruns at
// one thread count are bit-identical. totals[k] for the first `count` of the blocks x per_block
// values. `partial`: the threads' sums (grown once, then reused: no allocation per call).
template <typename RowSums>
void SumOverRows(int64_t rows, int64_t blocks, int64_t per_block, int64_t count, RowSums row_sums,
                 std::vector<double>* partial, double* totals) {
  const int64_t width = blocks * per_block;
  const int threads = omp_get_max_threads();
  std::vector<double>& sums = *partial;
  if (sums.size() < static_cast<size_t>(threads * width)) sums.resize(threads * width);
  std::fill(sums.begin(), sums.begin() + threads * width, 0.0);
#pragma omp parallel num_threads(threads)
  {
    double* mine = sums.data() + omp_get_thread_num() * width;
#pragma omp for schedule(static)
    for (int64_t row = 0; row < rows; ++row) row_sums(row, mine + (row % blocks) * per_block);
  }
  for (int64_t k = 0; k < count; ++k) {
    totals[k] = 0.0;
    for (int t = 0; t < threads; ++t) totals[k] += sums[t * width + k];
  }
}

}  // namespace dtrain::blocked
