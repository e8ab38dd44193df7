// The build's compiler and flags fill constant vectors exactly (cmake/DtrainCompilerCheck.cmake:
// GCC 12.2 with AVX-512 broadcast {5, 5, 5, 5, 0, 0, 0, 0} to eight 5s until the build turned its
// basic-block vectorizer off). The same shapes of initialiser, built as the rest of dtrain is.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace dtrain {
namespace {

__attribute__((noinline)) void FillHalfZero(float* out_f, double* out_d) {
  const float f[8] = {5, 5, 5, 5, 0, 0, 0, 0};
  const double d[4] = {3, 3, 0, 0};
  std::memcpy(out_f, f, sizeof f);
  for (int i = 0; i < 4; ++i) out_d[i] = d[i];
}

__attribute__((noinline)) std::vector<float> HalfZeroVector() { return {5, 5, 5, 5, 0, 0, 0, 0}; }

TEST(CompilerTest, HalfZeroConstantVectorsAreExact) {
  float f[8];
  double d[4];
  FillHalfZero(f, d);
  // Element by element: an expected vector written as a literal could be built wrongly too.
  for (int i = 0; i < 8; ++i) EXPECT_EQ(f[i], i < 4 ? 5.f : 0.f) << i;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(d[i], i < 2 ? 3. : 0.) << i;
  const std::vector<float> v = HalfZeroVector();
  ASSERT_EQ(v.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(v[i], i < 4 ? 5.f : 0.f) << i;
}

}  // namespace
}  // namespace dtrain
