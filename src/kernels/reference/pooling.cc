#include "kernels/reference/pooling.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace dtrain::reference {

using kernels::PoolingWindow;
using kernels::PoolSpan;

// Planes (one channel of one image) are independent: each is computed whole by one thread, so
// results do not depend on the thread count.

void MaxPoolForward(const kernels::PoolingShape& s, const float* src, float* dst, int* mask) {
  const kernels::Window2d& w = s.window;
  const int planes = s.batch * s.channels;
  const long in_plane = static_cast<long>(s.in_h) * s.in_w;
  const long out_plane = static_cast<long>(s.out_h) * s.out_w;
#pragma omp parallel for schedule(static)
  for (int p = 0; p < planes; ++p) {
    const float* in = src + p * in_plane;
    float* out = dst + p * out_plane;
    int* arg = mask + p * out_plane;
    for (int oh = 0; oh < s.out_h; ++oh) {
      const PoolSpan h = PoolingWindow(oh, s.in_h, w.kernel_h, w.pad_h, w.stride_h);
      for (int ow = 0; ow < s.out_w; ++ow) {
        const PoolSpan x = PoolingWindow(ow, s.in_w, w.kernel_w, w.pad_w, w.stride_w);
        float best = -FLT_MAX;
        int best_index = -1;
        for (int ih = h.start; ih < h.end; ++ih) {
          for (int iw = x.start; iw < x.end; ++iw) {
            const int index = ih * s.in_w + iw;
            if (in[index] > best) {
              best = in[index];
              best_index = index;
            }
          }
        }
        *out++ = best;
        *arg++ = best_index;
      }
    }
  }
}

void MaxPoolBackward(const kernels::PoolingShape& s, const float* diff_dst, const int* mask,
                     float* diff_src) {
  const int planes = s.batch * s.channels;
  const long in_plane = static_cast<long>(s.in_h) * s.in_w;
  const long out_plane = static_cast<long>(s.out_h) * s.out_w;
#pragma omp parallel for schedule(static)
  for (int p = 0; p < planes; ++p) {
    float* in = diff_src + p * in_plane;
    const float* out = diff_dst + p * out_plane;
    const int* arg = mask + p * out_plane;
    std::fill(in, in + in_plane, 0.f);
    for (long j = 0; j < out_plane; ++j) {
      if (arg[j] >= 0) in[arg[j]] += out[j];
    }
  }
}

void AvePoolForward(const kernels::PoolingShape& s, const float* src, float* dst) {
  const kernels::Window2d& w = s.window;
  const int planes = s.batch * s.channels;
  const long in_plane = static_cast<long>(s.in_h) * s.in_w;
  const long out_plane = static_cast<long>(s.out_h) * s.out_w;
#pragma omp parallel for schedule(static)
  for (int p = 0; p < planes; ++p) {
    const float* in = src + p * in_plane;
    float* out = dst + p * out_plane;
    for (int oh = 0; oh < s.out_h; ++oh) {
      const PoolSpan h = PoolingWindow(oh, s.in_h, w.kernel_h, w.pad_h, w.stride_h);
      for (int ow = 0; ow < s.out_w; ++ow) {
        const PoolSpan x = PoolingWindow(ow, s.in_w, w.kernel_w, w.pad_w, w.stride_w);
        float sum = 0.f;
        for (int ih = h.start; ih < h.end; ++ih) {
          for (int iw = x.start; iw < x.end; ++iw) sum += in[ih * s.in_w + iw];
        }
        *out++ = sum / static_cast<float>(h.padded_extent * x.padded_extent);
      }
    }
  }
}

void AvePoolBackward(const kernels::PoolingShape& s, const float* diff_dst, float* diff_src) {
  const kernels::Window2d& w = s.window;
  const int planes = s.batch * s.channels;
  const long in_plane = static_cast<long>(s.in_h) * s.in_w;
  const long out_plane = static_cast<long>(s.out_h) * s.out_w;
#pragma omp parallel for schedule(static)
  for (int p = 0; p < planes; ++p) {
    float* in = diff_src + p * in_plane;
    const float* out = diff_dst + p * out_plane;
    std::fill(in, in + in_plane, 0.f);
    for (int oh = 0; oh < s.out_h; ++oh) {
      const PoolSpan h = PoolingWindow(oh, s.in_h, w.kernel_h, w.pad_h, w.stride_h);
      for (int ow = 0; ow < s.out_w; ++ow) {
        const PoolSpan x = PoolingWindow(ow, s.in_w, w.kernel_w, w.pad_w, w.stride_w);
        const float g = *out++ / static_cast<float>(h.padded_extent * x.padded_extent);
        for (int ih = h.start; ih < h.end; ++ih) {
          for (int iw = x.start; iw < x.end; ++iw) in[ih * s.in_w + iw] += g;
        }
      }
    }
  }
}

namespace {

// Calls visit(plane, out_index, h_span, w_span) for every output element, planes in parallel.
template <typename Visit>
void ForEachWindow(const kernels::PoolingShape& s, Visit visit) {
  const kernels::Window2d& w = s.window;
  const int planes = s.batch * s.channels;
#pragma omp parallel for schedule(static)
  for (int p = 0; p < planes; ++p) {
    for (int oh = 0; oh < s.out_h; ++oh) {
      const PoolSpan h = PoolingWindow(oh, s.in_h, w.kernel_h, w.pad_h, w.stride_h);
      for (int ow = 0; ow < s.out_w; ++ow) {
        visit(p, oh * s.out_w + ow, h, PoolingWindow(ow, s.in_w, w.kernel_w, w.pad_w, w.stride_w));
      }
    }
  }
}

struct WindowSums {
  float sum = 0.f, squares = 0.f;
};

// The sum and the sum of squares of a window of one plane.
WindowSums SumWindow(const float* plane, int in_w, PoolSpan h, PoolSpan x) {
  WindowSums sums;
  for (int ih = h.start; ih < h.end; ++ih) {
    for (int iw = x.start; iw < x.end; ++iw) {
      const float v = plane[ih * in_w + iw];
      sums.sum += v;
      sums.squares += v * v;
    }
  }
  return sums;
}

}  // namespace

void StochasticPoolForwardTrain(const kernels::PoolingShape& s, const float* src, const float* u,
                                float* dst, int* mask) {
  const long in_plane = static_cast<long>(s.in_h) * s.in_w;
  const long out_plane = static_cast<long>(s.out_h) * s.out_w;
  ForEachWindow(s, [&](int p, int o, PoolSpan h, PoolSpan x) {
    const float* in = src + p * in_plane;
    const float threshold = u[p * out_plane + o] * SumWindow(in, s.in_w, h, x).sum;
    int chosen = -1;
    float running = 0.f;
    for (int ih = h.start; ih < h.end && chosen < 0; ++ih) {
      for (int iw = x.start; iw < x.end; ++iw) {
        running += in[ih * s.in_w + iw];
        if (running >= threshold) {
          chosen = ih * s.in_w + iw;
          break;
        }
      }
    }
    if (chosen < 0 && h.end > h.start && x.end > x.start) chosen = (h.end - 1) * s.in_w + x.end - 1;
    dst[p * out_plane + o] = chosen < 0 ? 0.f : in[chosen];
    mask[p * out_plane + o] = chosen;
  });
}

void StochasticPoolForwardTest(const kernels::PoolingShape& s, const float* src, float* dst) {
  const long in_plane = static_cast<long>(s.in_h) * s.in_w;
  const long out_plane = static_cast<long>(s.out_h) * s.out_w;
  ForEachWindow(s, [&](int p, int o, PoolSpan h, PoolSpan x) {
    const WindowSums w = SumWindow(src + p * in_plane, s.in_w, h, x);
    dst[p * out_plane + o] = w.sum > 0.f ? w.squares / w.sum : 0.f;
  });
}

void StochasticPoolBackwardTest(const kernels::PoolingShape& s, const float* src,
                                const float* diff_dst, float* diff_src) {
  const long in_plane = static_cast<long>(s.in_h) * s.in_w;
  const long out_plane = static_cast<long>(s.out_h) * s.out_w;
  std::fill(diff_src, diff_src + static_cast<long>(s.batch) * s.channels * in_plane, 0.f);
  // Windows of one plane may overlap, so each plane's gradient is summed by one thread.
  ForEachWindow(s, [&](int p, int o, PoolSpan h, PoolSpan x) {
    const float* in = src + p * in_plane;
    float* grad = diff_src + p * in_plane;
    const WindowSums w = SumWindow(in, s.in_w, h, x);
    if (w.sum <= 0.f) return;
    const float top_diff = diff_dst[p * out_plane + o];
    for (int ih = h.start; ih < h.end; ++ih) {
      for (int iw = x.start; iw < x.end; ++iw) {
        const float v = in[ih * s.in_w + iw];
        grad[ih * s.in_w + iw] += top_diff * (2.f * v * w.sum - w.squares) / (w.sum * w.sum);
      }
    }
  });
}

StatusOr<std::unique_ptr<kernels::PoolingKernel>> Pooling::Create(
    const kernels::PoolingProblem& problem, const kernels::KernelRequest&) {
  return std::unique_ptr<kernels::PoolingKernel>(new Pooling(problem));
}

Pooling::Pooling(const kernels::PoolingProblem& problem) : problem_(problem) {
  const kernels::PoolingShape& s = problem.shape;
  if (RoutesToChosen()) mask_.resize(static_cast<size_t>(s.batch) * s.channels * s.out_h * s.out_w);
}

bool Pooling::RoutesToChosen() const {
  return problem_.method == kernels::PoolMethod::kMax ||
         (problem_.method == kernels::PoolMethod::kStochastic && problem_.training);
}

void Pooling::Forward(const float* src, const float* uniforms, float* dst, float* argmax) {
  const kernels::PoolingShape& s = problem_.shape;
  switch (problem_.method) {
    case kernels::PoolMethod::kStochastic:
      if (problem_.training) {
        StochasticPoolForwardTrain(s, src, uniforms, dst, mask_.data());
      } else {
        StochasticPoolForwardTest(s, src, dst);
      }
      return;
    case kernels::PoolMethod::kAverage:
      AvePoolForward(s, src, dst);
      return;
    case kernels::PoolMethod::kMax:
      MaxPoolForward(s, src, dst, mask_.data());
      if (problem_.argmax_top) std::copy(mask_.begin(), mask_.end(), argmax);
      return;
  }
}

void Pooling::Backward(const float* src, const float* diff_dst, float* diff_src) {
  const kernels::PoolingShape& s = problem_.shape;
  if (RoutesToChosen()) {
    MaxPoolBackward(s, diff_dst, mask_.data(), diff_src);
  } else if (problem_.method == kernels::PoolMethod::kStochastic) {
    StochasticPoolBackwardTest(s, src, diff_dst, diff_src);
  } else {
    AvePoolBackward(s, diff_dst, diff_src);
  }
}

}  // namespace dtrain::reference
