#include <gtest/gtest.h>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

const char* kAxpy = R"(name: "axpy" type: "Axpy")";

TEST(AxpyLayerTest, ForwardScalesEachChannelAndAddsY) {
  // a = (2, -1) over channels of 2 positions: 2 (1, 2) + (10, 20) = (12, 24);
  // -1 (3, 4) + (30, 40) = (27, 36).
  for (const std::vector<int>& a_shape : {std::vector<int>{1, 2}, std::vector<int>{1, 2, 1, 1}}) {
    auto layer = MakeLayer(kAxpy);
    Tensor a(a_shape), x({1, 2, 1, 2}), y({1, 2, 1, 2}), top;
    FillValues(&a, {2, -1});
    FillValues(&x, {1, 2, 3, 4});
    FillValues(&y, {10, 20, 30, 40});
    ASSERT_TRUE(layer->Setup({&a, &x, &y}, {&top}).ok());
    ASSERT_TRUE(layer->Forward({&a, &x, &y}, {&top}, nullptr).ok());
    EXPECT_EQ(top.shape(), x.shape());
    EXPECT_EQ(Values(top), (std::vector<float>{12, 24, 27, 36}));
  }
}

TEST(AxpyLayerTest, BackwardByHand) {
  // dtop = (1, 2, 3, 4): da = (1 * 1 + 2 * 2, 3 * 3 + 4 * 4) = (5, 25), dx = a dtop = (2, 4, -3,
  // -4), dy = dtop.
  auto layer = MakeLayer(kAxpy);
  Tensor a({1, 2}), x({1, 2, 1, 2}), y({1, 2, 1, 2}), top;
  FillValues(&a, {2, -1});
  FillValues(&x, {1, 2, 3, 4});
  FillValues(&y, {10, 20, 30, 40});
  ASSERT_TRUE(layer->Setup({&a, &x, &y}, {&top}).ok());
  ASSERT_TRUE(layer->Forward({&a, &x, &y}, {&top}, nullptr).ok());
  FillValues(&top, {1, 2, 3, 4});
  std::copy(top.data(), top.data() + 4, top.mutable_diff());
  layer->Backward({&top}, {true, true, true}, {&a, &x, &y});
  EXPECT_EQ(std::vector<float>(a.diff(), a.diff() + 2), (std::vector<float>{5, 25}));
  EXPECT_EQ(std::vector<float>(x.diff(), x.diff() + 4), (std::vector<float>{2, 4, -3, -4}));
  EXPECT_EQ(std::vector<float>(y.diff(), y.diff() + 4), (std::vector<float>{1, 2, 3, 4}));
}

TEST(AxpyLayerTest, XGetsItsGradientWhenOnlyXAsksForIt) {
  // Intel Caffe writes dx only where a asks for a gradient (it tests propagate_down[0] twice);
  // dtrain gives x its gradient whenever x asks, and leaves a's diff alone.
  auto layer = MakeLayer(kAxpy);
  Tensor a({1, 2}), x({1, 2, 1, 2}), y({1, 2, 1, 2}), top;
  FillValues(&a, {2, -1});
  ASSERT_TRUE(layer->Setup({&a, &x, &y}, {&top}).ok());
  ASSERT_TRUE(layer->Forward({&a, &x, &y}, {&top}, nullptr).ok());
  FillValues(&top, {1, 2, 3, 4});
  std::copy(top.data(), top.data() + 4, top.mutable_diff());
  a.SetDiff(9.f);
  layer->Backward({&top}, {false, true, false}, {&a, &x, &y});
  EXPECT_EQ(std::vector<float>(x.diff(), x.diff() + 4), (std::vector<float>{2, 4, -3, -4}));
  EXPECT_EQ(std::vector<float>(a.diff(), a.diff() + 2), (std::vector<float>{9, 9}));
}

TEST(AxpyLayerTest, Gradient) {
  auto layer = MakeLayer(kAxpy);
  Tensor a({2, 3, 1, 1}), x({2, 3, 2, 3}), y({2, 3, 2, 3}), top;
  testing::FillGaussian(&a, 1);
  testing::FillGaussian(&x, 2);
  testing::FillGaussian(&y, 3);
  testing::CheckGradients(*layer, {&a, &x, &y}, {&top});
}

TEST(AxpyLayerTest, InPlaceOnYMatchesOutOfPlace) {
  auto layer = MakeLayer(kAxpy);
  auto in_place = MakeLayer(kAxpy);
  Tensor a({2, 3}), x({2, 3, 2, 2}), y({2, 3, 2, 2}), z({2, 3, 2, 2}), top;
  testing::FillGaussian(&a, 4);
  testing::FillGaussian(&x, 5);
  testing::FillGaussian(&y, 6);
  z.CopyFrom(y);
  ASSERT_TRUE(layer->Setup({&a, &x, &y}, {&top}).ok());
  ASSERT_TRUE(layer->Forward({&a, &x, &y}, {&top}, nullptr).ok());
  Tensor a2, x2;
  a2.CopyFrom(a);
  x2.CopyFrom(x);
  ASSERT_TRUE(in_place->Setup({&a2, &x2, &z}, {&z}).ok());
  ASSERT_TRUE(in_place->Forward({&a2, &x2, &z}, {&z}, nullptr).ok());
  EXPECT_EQ(Values(z), Values(top));
  testing::FillGaussian(&top, 7);
  std::copy(top.data(), top.data() + top.count(), top.mutable_diff());
  std::copy(top.data(), top.data() + top.count(), z.mutable_diff());
  layer->Backward({&top}, {true, true, true}, {&a, &x, &y});
  in_place->Backward({&z}, {true, true, true}, {&a2, &x2, &z});
  EXPECT_EQ(std::vector<float>(a2.diff(), a2.diff() + 6),
            std::vector<float>(a.diff(), a.diff() + 6));
  EXPECT_EQ(std::vector<float>(x2.diff(), x2.diff() + 24),
            std::vector<float>(x.diff(), x.diff() + 24));
  EXPECT_EQ(std::vector<float>(z.diff(), z.diff() + 24),
            std::vector<float>(y.diff(), y.diff() + 24));
}

TEST(AxpyLayerTest, BadShapesAreRefused) {
  struct Case {
    std::vector<int> a, x, y;
    const char* message;
  };
  const Case cases[] = {
      {{1, 3},
       {1, 2, 2, 2},
       {1, 2, 2, 2},
       "a (bottom 0) must be (N, C) or (N, C, 1, 1) for x (bottom 1) of shape 1 2 2 2 (8), got 1 "
       "3 (3)"},
      {{1, 2, 2, 1},
       {1, 2, 2, 2},
       {1, 2, 2, 2},
       "a (bottom 0) must be (N, C) or (N, C, 1, 1) for x (bottom 1) of shape 1 2 2 2 (8), got 1 "
       "2 2 1 (4)"},
      {{1, 2},
       {1, 2, 2, 2},
       {1, 2, 4},
       "y (bottom 2) must have the shape of x (bottom 1), 1 2 2 2 (8), got 1 2 4 (8)"},
      {{2}, {2}, {2}, "x (bottom 1) must have at least 2 axes (N, C, ...), got 2 (2)"},
  };
  for (const Case& c : cases) {
    auto layer = MakeLayer(kAxpy);
    Tensor a(c.a), x(c.x), y(c.y), top;
    EXPECT_EQ(layer->Setup({&a, &x, &y}, {&top}).message(),
              std::string("layer 'axpy' (Axpy): ") + c.message);
  }
  auto layer = MakeLayer(kAxpy);
  Tensor a({1, 2}), x({1, 2, 2, 2}), y({1, 2, 2, 2});
  EXPECT_EQ(layer->Setup({&a, &x, &y}, {&x}).message(),
            "layer 'axpy' (Axpy): may run in place only on its third bottom (y)");
}

}  // namespace
}  // namespace dtrain
