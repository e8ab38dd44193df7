#include <gtest/gtest.h>

#include <cmath>

#include "testing/gradient_checker.h"
#include "testing/in_place_check.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

// Forward on `in`, then backward with a top diff of ones; returns y and dx in *y, *dx.
void RunOnes(Layer& layer, const std::vector<float>& in, std::vector<float>* y,
             std::vector<float>* dx) {
  Tensor x({static_cast<int>(in.size())}), top;
  FillValues(&x, in);
  ASSERT_TRUE(layer.Setup({&x}, {&top}).ok());
  ASSERT_TRUE(layer.Forward({&x}, {&top}, nullptr).ok());
  *y = testing::Values(top);
  top.SetDiff(1.f);
  layer.Backward({&top}, {true}, {&x});
  dx->assign(x.diff(), x.diff() + x.count());
}

TEST(LogLayerTest, ForwardAndBackwardByHand) {
  // y = log10(1 + 2x)
  auto layer = MakeLayer(R"(name: "l" type: "Log" log_param { base: 10 scale: 2 shift: 1 })");
  std::vector<float> y, dx;
  RunOnes(*layer, {0.f, 4.5f, 49.5f}, &y, &dx);
  EXPECT_NEAR(y[0], 0.f, 1e-6);
  EXPECT_NEAR(y[1], 1.f, 1e-6);
  EXPECT_NEAR(y[2], 2.f, 1e-6);
  const float ln10 = std::log(10.f);
  EXPECT_NEAR(dx[0], 2.f / ln10, 1e-6);  // scale / (ln(base) * (shift + scale x))
  EXPECT_NEAR(dx[1], 2.f / (ln10 * 10.f), 1e-7);
  EXPECT_NEAR(dx[2], 2.f / (ln10 * 100.f), 1e-8);
}

TEST(LogLayerTest, DefaultIsNaturalLog) {
  auto layer = MakeLayer(R"(name: "l" type: "Log")");
  std::vector<float> y, dx;
  RunOnes(*layer, {2.7182818f, 0.25f}, &y, &dx);
  EXPECT_NEAR(y[0], 1.f, 1e-6);
  EXPECT_NEAR(y[1], std::log(0.25f), 1e-6);
  EXPECT_NEAR(dx[1], 4.f, 1e-5);
}

TEST(LogLayerTest, Gradient) {
  for (const char* text : {R"(name: "l" type: "Log")",
                           R"(name: "l" type: "Log" log_param { base: 2 scale: 0.5 shift: 0.3 })",
                           R"(name: "l" type: "Log" log_param { scale: -1 shift: 3 })"}) {
    SCOPED_TRACE(text);
    auto layer = MakeLayer(text);
    Tensor x({2, 3, 2}), y;
    testing::FillUniform(&x, 1, 0.5f, 2.f);
    testing::CheckGradients(*layer, {&x}, {&y});
  }
}

TEST(LogLayerTest, InPlaceMatchesOutOfPlace) {
  Tensor x({12});
  testing::FillUniform(&x, 3, 0.5f, 2.f);
  testing::ExpectInPlaceMatchesOutOfPlace(
      R"(name: "l" type: "Log" log_param { base: 3 scale: 2 shift: 0.1 })", x);
}

TEST(LogLayerTest, BadBaseIsAnError) {
  Tensor x({3}), y;
  auto negative = MakeLayer(R"(name: "l" type: "Log" log_param { base: -2 })");
  Status s = negative->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("log_param.base must be -1 (e) or positive"), std::string::npos)
      << s.message();
  auto one = MakeLayer(R"(name: "l" type: "Log" log_param { base: 1 })");
  s = one->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("gives no finite 1 / log(base)"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
