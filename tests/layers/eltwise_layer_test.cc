#include <gtest/gtest.h>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

class EltwiseForwardTest : public ::testing::Test {
 protected:
  EltwiseForwardTest() : a_({4}), b_({4}), c_({4}) {
    FillValues(&a_, {1, -2, 3, 0.5f});
    FillValues(&b_, {2, 5, -1, 0.5f});
    FillValues(&c_, {-3, 4, 2, 1});
  }
  std::vector<float> Output(const std::string& eltwise_param) {
    auto layer =
        MakeLayer(R"(name: "elt" type: "Eltwise" eltwise_param { )" + eltwise_param + " }");
    EXPECT_TRUE(layer->Setup({&a_, &b_, &c_}, {&y_}).ok());
    EXPECT_TRUE(layer->Forward({&a_, &b_, &c_}, {&y_}, nullptr).ok());
    return Values(y_);
  }
  Tensor a_, b_, c_, y_;
};

TEST_F(EltwiseForwardTest, Sum) {
  EXPECT_EQ(Output("operation: SUM"), (std::vector<float>{0, 7, 4, 2}));
}

TEST_F(EltwiseForwardTest, SumWithCoefficients) {
  EXPECT_EQ(Output("operation: SUM coeff: 1 coeff: -2 coeff: 0.5"),
            (std::vector<float>{-4.5f, -10, 6, 0}));
}

TEST_F(EltwiseForwardTest, Prod) {
  EXPECT_EQ(Output("operation: PROD"), (std::vector<float>{-6, -40, -6, 0.25f}));
}

TEST_F(EltwiseForwardTest, Max) {
  EXPECT_EQ(Output("operation: MAX"), (std::vector<float>{2, 5, 3, 1}));
}

// Three bottoms whose values differ by at least 0.3 at every position, so that the finite
// difference step never changes which one is the maximum.
void FillDistinct(Tensor* a, Tensor* b, Tensor* c) {
  Tensor* t[] = {a, b, c};
  for (int i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < t[i]->count(); ++j) {
      t[i]->mutable_data()[j] = static_cast<float>((j * 7 + i * 3) % 11) * 0.3f - 1.5f;
    }
  }
}

void CheckEltwiseGradient(const std::string& eltwise_param, bool distinct) {
  auto layer = MakeLayer(R"(name: "elt" type: "Eltwise" eltwise_param { )" + eltwise_param + " }");
  Tensor a({2, 3, 2}), b({2, 3, 2}), c({2, 3, 2}), y;
  if (distinct) {
    FillDistinct(&a, &b, &c);
  } else {
    testing::FillUniform(&a, 1, 0.5f, 1.5f);
    testing::FillUniform(&b, 2, -1.5f, -0.5f);
    testing::FillUniform(&c, 3, 0.5f, 1.5f);
  }
  testing::CheckGradients(*layer, {&a, &b, &c}, {&y});
}

TEST(EltwiseLayerTest, GradientSum) { CheckEltwiseGradient("operation: SUM", false); }
TEST(EltwiseLayerTest, GradientSumWithCoefficients) {
  CheckEltwiseGradient("operation: SUM coeff: 1 coeff: -2 coeff: 0.5", false);
}
TEST(EltwiseLayerTest, GradientStableProd) {
  CheckEltwiseGradient("operation: PROD stable_prod_grad: true", false);
}
TEST(EltwiseLayerTest, GradientUnstableProd) {
  CheckEltwiseGradient("operation: PROD stable_prod_grad: false", false);
}
TEST(EltwiseLayerTest, GradientMax) { CheckEltwiseGradient("operation: MAX", true); }

TEST(EltwiseLayerTest, DifferentShapesAreAnErrorNamingBothShapes) {
  auto layer = MakeLayer(R"(name: "elt" type: "Eltwise")");
  Tensor a({2, 3}), b({3, 2}), y;
  Status s = layer->Setup({&a, &b}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'elt'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("2 3 (6)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("3 2 (6)"), std::string::npos) << s.message();
}

TEST(EltwiseLayerTest, CoefficientsOnlyWithSum) {
  auto layer = MakeLayer(R"(name: "elt" type: "Eltwise"
                            eltwise_param { operation: PROD coeff: 1 coeff: 2 })");
  Tensor a({2}), b({2}), y;
  Status s = layer->Setup({&a, &b}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'elt'"), std::string::npos) << s.message();
}

TEST(EltwiseLayerTest, WrongNumberOfCoefficientsIsAnError) {
  auto layer = MakeLayer(R"(name: "elt" type: "Eltwise" eltwise_param { coeff: 1 })");
  Tensor a({2}), b({2}), y;
  Status s = layer->Setup({&a, &b}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'elt'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
