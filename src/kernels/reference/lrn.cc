#include "kernels/reference/lrn.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dtrain::reference {

// Both directions use the same symmetric window, so "the outputs whose window holds x" are
// exactly "the window around x". With y = x * s^-beta and ds_p/dx_q = 2 * alpha / n * x_q:
//   diff_src_q = diff_dst_q * s_q^-beta - 2 * alpha * beta / n * x_q * sum_p diff_dst_p y_p / s_p.

void LrnAcrossChannelsForward(const kernels::LrnShape& s, const float* src, float* dst,
                              float* scale) {
  const int half = (s.local_size - 1) / 2;
  const int64_t plane = static_cast<int64_t>(s.height) * s.width;
  const float alpha_over_n = s.alpha / s.local_size;
  for (int n = 0; n < s.batch; ++n) {
    const int64_t image = static_cast<int64_t>(n) * s.channels * plane;
    for (int c = 0; c < s.channels; ++c) {
      const int lo = std::max(c - half, 0), hi = std::min(c + half, s.channels - 1);
      for (int64_t j = 0; j < plane; ++j) {
        float sum = 0.f;
        for (int cc = lo; cc <= hi; ++cc) {
          const float x = src[image + cc * plane + j];
          sum += x * x;
        }
        const int64_t i = image + c * plane + j;
        scale[i] = s.k + alpha_over_n * sum;
        dst[i] = src[i] * std::pow(scale[i], -s.beta);
      }
    }
  }
}

void LrnAcrossChannelsBackward(const kernels::LrnShape& s, const float* src, const float* dst,
                               const float* scale, const float* diff_dst, float* diff_src) {
  const int half = (s.local_size - 1) / 2;
  const int64_t plane = static_cast<int64_t>(s.height) * s.width;
  const float ratio_coeff = 2.f * s.alpha * s.beta / s.local_size;
  for (int n = 0; n < s.batch; ++n) {
    const int64_t image = static_cast<int64_t>(n) * s.channels * plane;
    for (int c = 0; c < s.channels; ++c) {
      const int lo = std::max(c - half, 0), hi = std::min(c + half, s.channels - 1);
      for (int64_t j = 0; j < plane; ++j) {
        float accum = 0.f;
        for (int cc = lo; cc <= hi; ++cc) {
          const int64_t p = image + cc * plane + j;
          accum += diff_dst[p] * dst[p] / scale[p];
        }
        const int64_t i = image + c * plane + j;
        diff_src[i] = diff_dst[i] * std::pow(scale[i], -s.beta) - ratio_coeff * src[i] * accum;
      }
    }
  }
}

void LrnWithinChannelForward(const kernels::LrnShape& s, const float* src, float* dst,
                             float* scale) {
  const int half = (s.local_size - 1) / 2;
  const float alpha_over_n = s.alpha / (s.local_size * s.local_size);
  const int planes = s.batch * s.channels;
  for (int p = 0; p < planes; ++p) {
    const int64_t base = static_cast<int64_t>(p) * s.height * s.width;
    for (int h = 0; h < s.height; ++h) {
      const int h_lo = std::max(h - half, 0), h_hi = std::min(h + half, s.height - 1);
      for (int w = 0; w < s.width; ++w) {
        const int w_lo = std::max(w - half, 0), w_hi = std::min(w + half, s.width - 1);
        float sum = 0.f;
        for (int hh = h_lo; hh <= h_hi; ++hh) {
          for (int ww = w_lo; ww <= w_hi; ++ww) {
            const float x = src[base + hh * s.width + ww];
            sum += x * x;
          }
        }
        const int64_t i = base + h * s.width + w;
        scale[i] = s.k + alpha_over_n * sum;
        dst[i] = src[i] * std::pow(scale[i], -s.beta);
      }
    }
  }
}

void LrnWithinChannelBackward(const kernels::LrnShape& s, const float* src, const float* dst,
                              const float* scale, const float* diff_dst, float* diff_src) {
  const int half = (s.local_size - 1) / 2;
  const float ratio_coeff = 2.f * s.alpha * s.beta / (s.local_size * s.local_size);
  const int planes = s.batch * s.channels;
  for (int p = 0; p < planes; ++p) {
    const int64_t base = static_cast<int64_t>(p) * s.height * s.width;
    for (int h = 0; h < s.height; ++h) {
      const int h_lo = std::max(h - half, 0), h_hi = std::min(h + half, s.height - 1);
      for (int w = 0; w < s.width; ++w) {
        const int w_lo = std::max(w - half, 0), w_hi = std::min(w + half, s.width - 1);
        float accum = 0.f;
        for (int hh = h_lo; hh <= h_hi; ++hh) {
          for (int ww = w_lo; ww <= w_hi; ++ww) {
            const int64_t q = base + hh * s.width + ww;
            accum += diff_dst[q] * dst[q] / scale[q];
          }
        }
        const int64_t i = base + h * s.width + w;
        diff_src[i] = diff_dst[i] * std::pow(scale[i], -s.beta) - ratio_coeff * src[i] * accum;
      }
    }
  }
}

StatusOr<std::unique_ptr<kernels::UnaryKernel>> Lrn::Create(const kernels::LrnProblem& problem,
                                                            const kernels::KernelRequest&) {
  return std::unique_ptr<kernels::UnaryKernel>(new Lrn(problem));
}

Lrn::Lrn(const kernels::LrnProblem& problem)
    : problem_(problem),
      scale_(static_cast<size_t>(problem.shape.batch) * problem.shape.channels *
             problem.shape.height * problem.shape.width) {}

void Lrn::Forward(const float* src, float* dst) {
  if (problem_.across_channels) {
    LrnAcrossChannelsForward(problem_.shape, src, dst, scale_.data());
  } else {
    LrnWithinChannelForward(problem_.shape, src, dst, scale_.data());
  }
}

void Lrn::Backward(const float* src, const float* dst, const float* diff_dst, float* diff_src) {
  if (problem_.across_channels) {
    LrnAcrossChannelsBackward(problem_.shape, src, dst, scale_.data(), diff_dst, diff_src);
  } else {
    LrnWithinChannelBackward(problem_.shape, src, dst, scale_.data(), diff_dst, diff_src);
  }
}

}  // namespace dtrain::reference
