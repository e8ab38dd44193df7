// dtrain's pooling loops on oneDNN's channel-blocked layout (kernels/blocked/pooling.h)
// against the reference kernel: forward outputs and input gradients equal bit for bit, on inputs
// full of ties (where MAX's first-largest rule decides), with NaNs and -0 gradients, padding,
// ceil-mode overhang, overlapping, gapped and tiling windows, different windows per axis, global
// windows and partly filled channel blocks, in blocks of 8 and of 16 channels whatever the CPU,
// at 1 to 3 threads; padding channels come out zero whatever the input holds there.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernels/blocked/pooling.h"
#include "kernels/reference/pooling.h"

namespace dtrain {
namespace {

using kernels::PoolingProblem;
using kernels::PoolMethod;

// A window per axis: kernel, stride and pad.
struct Axis {
  int kernel, stride, pad;
};

struct PoolCase {
  const char* name;
  PoolMethod method;
  int batch, channels, in_h, in_w;
  Axis h, w;
  bool round_up = true;
};

PoolingProblem ProblemOf(const PoolCase& c) {
  PoolingProblem p;
  p.method = c.method;
  kernels::PoolingShape& s = p.shape;
  s.batch = c.batch;
  s.channels = c.channels;
  s.in_h = c.in_h;
  s.in_w = c.in_w;
  s.window.kernel_h = c.h.kernel;
  s.window.kernel_w = c.w.kernel;
  s.window.stride_h = c.h.stride;
  s.window.stride_w = c.w.stride;
  s.window.pad_h = c.h.pad;
  s.window.pad_w = c.w.pad;
  const bool padded = c.h.pad > 0 || c.w.pad > 0;
  s.out_h = kernels::PooledSize(c.in_h, c.h.kernel, c.h.pad, c.h.stride, c.round_up, padded);
  s.out_w = kernels::PooledSize(c.in_w, c.w.kernel, c.w.pad, c.w.stride, c.round_up, padded);
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

// The padding channels of a buffer in blocks of `block` channels, `pixels` pixels per plane, set
// to `value`.
void FillPadding(std::vector<float>* blocked, int block, int batch, int channels, int64_t pixels,
                 float value) {
  const int blocks = (channels + block - 1) / block, used = channels - (blocks - 1) * block;
  for (int n = 0; n < batch; ++n) {
    float* last = blocked->data() + (int64_t{n} * blocks + blocks - 1) * pixels * block;
    for (int64_t i = 0; i < pixels; ++i) {
      for (int lane = used; lane < block; ++lane) last[i * block + lane] = value;
    }
  }
}

void ExpectPaddingZero(const std::vector<float>& blocked, int block, int batch, int channels,
                       int64_t pixels, const char* what) {
  std::vector<float> zeroed(blocked);
  FillPadding(&zeroed, block, batch, channels, pixels, 0.f);
  EXPECT_TRUE(SameBits(zeroed, blocked)) << what << ": padding channels not zero";
}

// Runs `blocked` (on blocks of `block` channels) on src and diff_dst (plain NCHW) and expects the
// reference's results.
void ExpectSameAsReference(const PoolingProblem& problem, kernels::PoolingKernel* blocked,
                           int block, const std::vector<float>& src,
                           const std::vector<float>& diff_dst) {
  const kernels::PoolingShape& s = problem.shape;
  auto reference = reference::Pooling::Create(problem, {});
  ASSERT_TRUE(reference.ok());
  std::vector<float> want_dst(diff_dst.size()), want_diff_src(src.size());
  (*reference)->Forward(src.data(), nullptr, want_dst.data(), nullptr);
  (*reference)->Backward(src.data(), diff_dst.data(), want_diff_src.data());

  const kernels::KernelLayouts layouts = blocked->layouts();
  ASSERT_TRUE(layouts.src && layouts.dst);
  const int64_t in_pixels = int64_t{s.in_h} * s.in_w, out_pixels = int64_t{s.out_h} * s.out_w;
  std::vector<float> blocked_src(layouts.src->bytes() / sizeof(float));
  std::vector<float> blocked_dst(layouts.dst->bytes() / sizeof(float), NAN);
  layouts.src->FromPlain(src.data(), blocked_src.data());
  FillPadding(&blocked_src, block, s.batch, s.channels, in_pixels, NAN);
  blocked->Forward(blocked_src.data(), nullptr, blocked_dst.data(), nullptr);
  ExpectPaddingZero(blocked_dst, block, s.batch, s.channels, out_pixels, "dst");
  std::vector<float> got_dst(want_dst.size());
  layouts.dst->ToPlain(blocked_dst.data(), got_dst.data());
  EXPECT_TRUE(SameBits(got_dst, want_dst)) << "forward differs from the reference";

  std::vector<float> blocked_diff_dst(blocked_dst.size());
  std::vector<float> blocked_diff_src(blocked_src.size(), NAN);
  layouts.dst->FromPlain(diff_dst.data(), blocked_diff_dst.data());
  FillPadding(&blocked_diff_dst, block, s.batch, s.channels, out_pixels, 5.f);
  blocked->Backward(blocked_src.data(), blocked_diff_dst.data(), blocked_diff_src.data());
  ExpectPaddingZero(blocked_diff_src, block, s.batch, s.channels, in_pixels, "diff_src");
  std::vector<float> got_diff_src(want_diff_src.size());
  layouts.src->ToPlain(blocked_diff_src.data(), got_diff_src.data());
  EXPECT_TRUE(SameBits(got_diff_src, want_diff_src)) << "backward differs from the reference";
}

// Sets the OpenMP thread count for one scope, then restores it.
class ThreadCount {
 public:
  explicit ThreadCount(int threads) : before_(omp_get_max_threads()) {
    omp_set_num_threads(threads);
  }
  ~ThreadCount() { omp_set_num_threads(before_); }

 private:
  int before_;
};

TEST(BlockedPooling, MatchesTheReferenceBitForBit) {
  const PoolCase cases[] = {
      // name, method, batch, channels, in_h, in_w, {kernel, stride, pad} along h, then w
      {"LeNet's pool1", PoolMethod::kMax, 3, 20, 24, 24, {2, 2, 0}, {2, 2, 0}},
      {"cifar10's pool1 (ceil overhang)", PoolMethod::kMax, 2, 32, 32, 32, {3, 2, 0}, {3, 2, 0}},
      {"cifar10's pool2", PoolMethod::kAverage, 2, 32, 16, 16, {3, 2, 0}, {3, 2, 0}},
      {"padded MAX", PoolMethod::kMax, 2, 10, 10, 10, {3, 2, 1}, {3, 2, 1}},
      {"padded AVE, full divisor", PoolMethod::kAverage, 2, 10, 9, 9, {3, 1, 1}, {3, 1, 1}},
      {"padded AVE, overhang", PoolMethod::kAverage, 2, 9, 8, 8, {3, 2, 1}, {3, 2, 1}},
      {"tiled padded AVE", PoolMethod::kAverage, 2, 12, 8, 8, {2, 2, 1}, {2, 2, 1}},
      {"overlapping MAX, stride 1", PoolMethod::kMax, 2, 17, 7, 6, {3, 1, 0}, {3, 1, 0}},
      {"gapped MAX, floor", PoolMethod::kMax, 2, 8, 11, 11, {2, 3, 0}, {2, 3, 0}, false},
      {"gapped AVE, floor", PoolMethod::kAverage, 2, 8, 11, 11, {2, 3, 0}, {2, 3, 0}, false},
      {"axes apart, MAX", PoolMethod::kMax, 2, 11, 9, 13, {3, 2, 1}, {2, 1, 0}},
      {"axes apart, AVE", PoolMethod::kAverage, 2, 11, 13, 9, {2, 1, 0}, {3, 2, 1}},
      {"global AVE", PoolMethod::kAverage, 2, 9, 6, 5, {6, 1, 0}, {5, 1, 0}},
      {"global MAX, 196 taps", PoolMethod::kMax, 2, 24, 14, 14, {14, 1, 0}, {14, 1, 0}},
      {"MAX of 254 taps", PoolMethod::kMax, 1, 8, 2, 130, {2, 1, 0}, {127, 3, 0}},
      {"non-square window", PoolMethod::kMax, 1, 16, 9, 12, {2, 2, 1}, {4, 2, 1}},
      {"one pixel", PoolMethod::kAverage, 2, 33, 1, 1, {1, 1, 0}, {1, 1, 0}},
  };
  for (const PoolCase& c : cases) {
    const PoolingProblem problem = ProblemOf(c);
    const kernels::PoolingShape& s = problem.shape;
    for (auto [block, threads] : {std::pair{8, 1}, {8, 2}, {8, 3}, {16, 1}, {16, 2}}) {
      SCOPED_TRACE(std::string(c.name) + ", blocks of " + std::to_string(block) + ", " +
                   std::to_string(threads) + " threads");
      ThreadCount count(threads);
      auto blocked = blocked::Pooling::CreateWithBlock(problem, block);
      ASSERT_TRUE(blocked.ok()) << blocked.status().message();
      std::mt19937 gen(7);
      for (int call = 0; call < 2; ++call) {  // the same kernel again, on new values
        const std::vector<float> src = TiedValues(size_t(s.batch) * s.channels * s.in_h * s.in_w,
                                                  &gen, c.method == PoolMethod::kMax);
        const std::vector<float> diff_dst =
            TiedValues(size_t(s.batch) * s.channels * s.out_h * s.out_w, &gen, /*with_nans=*/false);
        ExpectSameAsReference(problem, blocked->get(), block, src, diff_dst);
      }
    }
  }
}

// Windows with nothing to choose (all NaN, -inf or -FLT_MAX): dst is -FLT_MAX and no gradient
// flows back, as in the reference.
TEST(BlockedPooling, WindowsWithoutAChoiceRouteNoGradient) {
  const PoolingProblem problem =
      ProblemOf({"", PoolMethod::kMax, 2, 9, 4, 6, {2, 2, 0}, {2, 2, 0}});
  std::vector<float> src(2 * 9 * 4 * 6);
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  const float nothing[] = {NAN, -INFINITY, -std::numeric_limits<float>::max()};
  for (size_t i = 0; i < src.size(); ++i) {
    const int row = static_cast<int>(i / 6 % 4), col = static_cast<int>(i % 6);
    // The first row of windows holds nothing to choose: NaNs, -infs, then -FLT_MAXs.
    src[i] = row < 2 ? nothing[col / 2] : uniform(gen);
  }
  std::vector<float> diff_dst(2 * 9 * 2 * 3);
  for (float& d : diff_dst) d = uniform(gen);
  for (int block : {8, 16}) {
    auto blocked = blocked::Pooling::CreateWithBlock(problem, block);
    ASSERT_TRUE(blocked.ok());
    ExpectSameAsReference(problem, blocked->get(), block, src, diff_dst);
  }
}

TEST(BlockedPooling, DeclinesWhatItCannotKeepExact) {
  PoolCase wide = {"", PoolMethod::kMax, 1, 16, 5, 51, {5, 1, 0}, {51, 1, 0}};  // 255 taps
  EXPECT_EQ(blocked::Pooling::Create(ProblemOf(wide), {}).status().message(),
            "a MAX window of more than 254 taps (the chosen tap is kept in a byte)");
  wide.method = PoolMethod::kAverage;  // AVE keeps no taps
  EXPECT_TRUE(blocked::Pooling::Create(ProblemOf(wide), {}).ok());

  PoolingProblem rgb = ProblemOf({"", PoolMethod::kMax, 1, 3, 8, 8, {2, 2, 0}, {2, 2, 0}});
  EXPECT_EQ(blocked::Pooling::Create(rgb, {}).status().message(), "fewer than 8 channels");
  PoolingProblem stochastic =
      ProblemOf({"", PoolMethod::kStochastic, 1, 8, 8, 8, {2, 2, 0}, {2, 2, 0}});
  EXPECT_EQ(blocked::Pooling::Create(stochastic, {}).status().message(), "STOCHASTIC pooling");
  PoolingProblem with_mask = ProblemOf({"", PoolMethod::kMax, 1, 8, 8, 8, {2, 2, 0}, {2, 2, 0}});
  with_mask.argmax_top = true;
  EXPECT_FALSE(blocked::Pooling::Create(with_mask, {}).ok());
}

}  // namespace
}  // namespace dtrain
