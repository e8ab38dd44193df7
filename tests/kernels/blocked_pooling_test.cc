// dtrain's pooling loops on oneDNN's channel-blocked layout (kernels/onednn/blocked_pooling.h)
// against the reference kernel: forward outputs and input gradients equal bit for bit, on inputs
// full of ties (where MAX's first-largest rule decides), with NaNs and -0 gradients, padding,
// ceil-mode overhang, overlapping, gapped and tiling windows, global windows and partly filled
// channel blocks, at 1 to 3 threads; padding channels come out zero whatever the input holds
// there.
#include "kernels/onednn/blocked_pooling.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/onednn/common.h"
#include "kernels/reference/pooling.h"

namespace dtrain {
namespace {

using kernels::PoolingProblem;
using kernels::PoolMethod;

struct PoolCase {
  const char* name;
  PoolMethod method;
  int batch, channels, in_h, in_w;
  int kernel_h, kernel_w, stride, pad;
  bool round_up;
};

PoolingProblem ProblemOf(const PoolCase& c) {
  PoolingProblem p;
  p.method = c.method;
  kernels::PoolingShape& s = p.shape;
  s.batch = c.batch;
  s.channels = c.channels;
  s.in_h = c.in_h;
  s.in_w = c.in_w;
  s.window.kernel_h = c.kernel_h;
  s.window.kernel_w = c.kernel_w;
  s.window.stride_h = s.window.stride_w = c.stride;
  s.window.pad_h = s.window.pad_w = c.pad;
  const bool padded = c.pad > 0;
  s.out_h = kernels::PooledSize(c.in_h, c.kernel_h, c.pad, c.stride, c.round_up, padded);
  s.out_w = kernels::PooledSize(c.in_w, c.kernel_w, c.pad, c.stride, c.round_up, padded);
  return p;
}

// Small integers (many ties, zeros as after a ReLU, some of them -0), some fractions, and a NaN
// now and then.
std::vector<float> TiedValues(size_t count, std::mt19937* gen, bool with_nans) {
  std::uniform_int_distribution<int> pick(0, 39);
  std::vector<float> values(count);
  for (float& v : values) {
    const int k = pick(*gen);
    if (k < 30) {
      v = k == 27 ? -0.f : static_cast<float>(k % 3);
    } else {
      v = (k < 39 || !with_nans) ? k * 0.37f - 9.f : NAN;
    }
  }
  return values;
}

// Whether two float arrays hold the same bits (NaNs included).
bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The padding channels of a blocked buffer of `pixels` pixels per plane, set to `value`.
void FillPadding(std::vector<float>* blocked, int batch, int channels, int64_t pixels,
                 float value) {
  const int block = onednn::BlocksOf16Channels() ? 16 : 8;
  const int blocks = (channels + block - 1) / block, used = channels - (blocks - 1) * block;
  for (int n = 0; n < batch; ++n) {
    float* last = blocked->data() + (int64_t{n} * blocks + blocks - 1) * pixels * block;
    for (int64_t i = 0; i < pixels; ++i) {
      for (int lane = used; lane < block; ++lane) last[i * block + lane] = value;
    }
  }
}

void ExpectPaddingZero(const std::vector<float>& blocked, int batch, int channels, int64_t pixels,
                       const char* what) {
  std::vector<float> zeroed(blocked);
  FillPadding(&zeroed, batch, channels, pixels, 0.f);
  EXPECT_TRUE(SameBits(zeroed, blocked)) << what << ": padding channels not zero";
}

void ExpectSameAsReference(const PoolCase& c, int threads) {
  SCOPED_TRACE(std::string(c.name) + ", " + std::to_string(threads) + " threads");
  const PoolingProblem problem = ProblemOf(c);
  const kernels::PoolingShape& s = problem.shape;
  auto blocked = onednn::BlockedPooling::Create(problem, {});
  ASSERT_TRUE(blocked.ok()) << blocked.status().message();
  auto reference = reference::Pooling::Create(problem, {});
  ASSERT_TRUE(reference.ok());
  const kernels::KernelLayouts layouts = (*blocked)->layouts();
  ASSERT_TRUE(layouts.src && layouts.dst);

  std::mt19937 gen(7);
  const int64_t in_pixels = int64_t{s.in_h} * s.in_w, out_pixels = int64_t{s.out_h} * s.out_w;
  const std::vector<float> src =
      TiedValues(size_t(s.batch) * s.channels * in_pixels, &gen, c.method == PoolMethod::kMax);
  const std::vector<float> diff_dst = TiedValues(size_t(s.batch) * s.channels * out_pixels, &gen,
                                                 /*with_nans=*/false);
  std::vector<float> want_dst(diff_dst.size()), want_diff_src(src.size());
  (*reference)->Forward(src.data(), nullptr, want_dst.data(), nullptr);
  (*reference)->Backward(src.data(), diff_dst.data(), want_diff_src.data());

  omp_set_num_threads(threads);
  std::vector<float> blocked_src(layouts.src->bytes() / sizeof(float));
  std::vector<float> blocked_dst(layouts.dst->bytes() / sizeof(float), NAN);
  layouts.src->FromPlain(src.data(), blocked_src.data());
  FillPadding(&blocked_src, s.batch, s.channels, in_pixels, NAN);
  (*blocked)->Forward(blocked_src.data(), nullptr, blocked_dst.data(), nullptr);
  ExpectPaddingZero(blocked_dst, s.batch, s.channels, out_pixels, "dst");
  std::vector<float> got_dst(want_dst.size());
  layouts.dst->ToPlain(blocked_dst.data(), got_dst.data());
  EXPECT_TRUE(SameBits(got_dst, want_dst)) << "forward differs from the reference";

  std::vector<float> blocked_diff_dst(blocked_dst.size());
  std::vector<float> blocked_diff_src(blocked_src.size(), NAN);
  layouts.dst->FromPlain(diff_dst.data(), blocked_diff_dst.data());
  FillPadding(&blocked_diff_dst, s.batch, s.channels, out_pixels, 5.f);
  (*blocked)->Backward(blocked_src.data(), blocked_diff_dst.data(), blocked_diff_src.data());
  ExpectPaddingZero(blocked_diff_src, s.batch, s.channels, in_pixels, "diff_src");
  std::vector<float> got_diff_src(want_diff_src.size());
  layouts.src->ToPlain(blocked_diff_src.data(), got_diff_src.data());
  EXPECT_TRUE(SameBits(got_diff_src, want_diff_src)) << "backward differs from the reference";
  omp_set_num_threads(omp_get_num_procs());
}

TEST(BlockedPooling, MatchesTheReferenceBitForBit) {
  const PoolCase cases[] = {
      // name, method, batch, channels, in_h, in_w, kernel_h, kernel_w, stride, pad, round_up
      {"LeNet's pool1", PoolMethod::kMax, 3, 20, 24, 24, 2, 2, 2, 0, true},
      {"cifar10's pool1 (ceil overhang)", PoolMethod::kMax, 2, 32, 32, 32, 3, 3, 2, 0, true},
      {"cifar10's pool2", PoolMethod::kAverage, 2, 32, 16, 16, 3, 3, 2, 0, true},
      {"padded MAX", PoolMethod::kMax, 2, 10, 10, 10, 3, 3, 2, 1, true},
      {"padded AVE, full divisor", PoolMethod::kAverage, 2, 10, 9, 9, 3, 3, 1, 1, true},
      {"padded AVE, overhang past the padding", PoolMethod::kAverage, 2, 9, 8, 8, 3, 3, 2, 1, true},
      {"overlapping MAX, stride 1", PoolMethod::kMax, 2, 17, 7, 6, 3, 3, 1, 0, true},
      {"gapped MAX, floor", PoolMethod::kMax, 2, 8, 11, 11, 2, 2, 3, 0, false},
      {"global AVE", PoolMethod::kAverage, 2, 9, 6, 5, 6, 5, 1, 0, true},
      {"global MAX, 196 taps", PoolMethod::kMax, 2, 24, 14, 14, 14, 14, 1, 0, true},
      {"non-square window", PoolMethod::kMax, 1, 16, 9, 12, 2, 4, 2, 1, true},
      {"one pixel", PoolMethod::kAverage, 2, 33, 1, 1, 1, 1, 1, 0, true},
  };
  for (const PoolCase& c : cases) {
    for (int threads : {1, 2, 3}) ExpectSameAsReference(c, threads);
  }
}

TEST(BlockedPooling, DeclinesWhatItCannotKeepExact) {
  PoolCase wide = {"", PoolMethod::kMax, 1, 16, 16, 16, 16, 16, 1, 0, true};
  EXPECT_EQ(onednn::BlockedPooling::Create(ProblemOf(wide), {}).status().message(),
            "a MAX window of more than 254 taps (the chosen tap is kept in a byte)");
  wide.method = PoolMethod::kAverage;  // AVE keeps no taps
  EXPECT_TRUE(onednn::BlockedPooling::Create(ProblemOf(wide), {}).ok());

  PoolingProblem rgb = ProblemOf({"", PoolMethod::kMax, 1, 3, 8, 8, 2, 2, 2, 0, true});
  EXPECT_EQ(onednn::BlockedPooling::Create(rgb, {}).status().message(), "fewer than 8 channels");
  PoolingProblem stochastic =
      ProblemOf({"", PoolMethod::kStochastic, 1, 8, 8, 8, 2, 2, 2, 0, true});
  EXPECT_EQ(onednn::BlockedPooling::Create(stochastic, {}).status().message(),
            "STOCHASTIC pooling");
  PoolingProblem with_mask = ProblemOf({"", PoolMethod::kMax, 1, 8, 8, 8, 2, 2, 2, 0, true});
  with_mask.argmax_top = true;
  EXPECT_FALSE(onednn::BlockedPooling::Create(with_mask, {}).ok());
}

}  // namespace
}  // namespace dtrain
