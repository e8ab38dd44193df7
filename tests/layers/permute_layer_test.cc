#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillIota;
using testing::MakeLayer;
using testing::Values;

std::string Permute(const std::string& order) {
  return R"(name: "perm" type: "Permute" permute_param { )" + order + " }";
}

// x is 2 x 3 x 2 x 2 holding 0..23, so x(n, c, h, w) = 12n + 4c + 2h + w.
TEST(PermuteLayerTest, ChannelsLastMovesEachPixelsChannelsTogether) {
  Tensor x({2, 3, 2, 2}), y;
  FillIota(&x, 0.f);
  auto layer = MakeLayer(Permute("order: 0 order: 2 order: 3 order: 1"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 2, 2, 3}));
  // y(n, h, w, c) = x(n, c, h, w): for n = 0, (h, w) = (0, 0) gives 0 4 8, (0, 1) gives 1 5 9, ...
  EXPECT_EQ(Values(y), (std::vector<float>{0,  4,  8,  1,  5,  9,  2,  6,  10, 3,  7,  11,
                                           12, 16, 20, 13, 17, 21, 14, 18, 22, 15, 19, 23}));
}

// x is 2 x 3 x 2 holding 0..11, so x(n, c, k) = 6n + 2c + k.
TEST(PermuteLayerTest, AxesNotNamedFollowInTheirOrder) {
  Tensor x({2, 3, 2}), y;
  FillIota(&x, 0.f);
  auto layer = MakeLayer(Permute("order: 1"));  // 1 0 2
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{3, 2, 2}));
  // y(c, n, k) = x(n, c, k).
  EXPECT_EQ(Values(y), (std::vector<float>{0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}));

  auto two = MakeLayer(Permute("order: 2 order: 0"));  // 2 0 1
  Tensor z;
  ASSERT_TRUE(two->Setup({&x}, {&z}).ok());
  ASSERT_TRUE(two->Forward({&x}, {&z}, nullptr).ok());
  EXPECT_EQ(z.shape(), (std::vector<int>{2, 2, 3}));
  // z(k, n, c) = x(n, c, k).
  EXPECT_EQ(Values(z), (std::vector<float>{0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}));
}

TEST(PermuteLayerTest, IdentityOrdersCopy) {
  for (const char* order : {"", "order: 0", "order: 0 order: 1 order: 2"}) {
    SCOPED_TRACE(order);
    Tensor x({2, 3, 2}), y;
    FillIota(&x, 5.f);
    auto layer = MakeLayer(Permute(order));
    ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
    ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
    EXPECT_EQ(y.shape(), x.shape());
    EXPECT_EQ(Values(y), Values(x));
  }
}

TEST(PermuteLayerTest, BackwardMovesEveryDiffBack) {
  Tensor x({2, 3, 2}), y;
  FillIota(&x, 0.f);
  auto layer = MakeLayer(Permute("order: 2 order: 1 order: 0"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  // The top diff is the top's values, so each bottom diff must come back as its own value.
  std::copy(y.data(), y.data() + y.count(), y.mutable_diff());
  x.SetDiff(-1.f);
  layer->Backward({&y}, {true}, {&x});
  EXPECT_EQ(std::vector<float>(x.diff(), x.diff() + x.count()), Values(x));
}

TEST(PermuteLayerTest, Gradient) {
  for (const char* order : {"order: 0 order: 2 order: 3 order: 1", "order: 3 order: 1", ""}) {
    SCOPED_TRACE(order);
    Tensor x({2, 3, 2, 4}), y;
    testing::FillGaussian(&x, 7);
    auto layer = MakeLayer(Permute(order));
    testing::CheckGradients(*layer, {&x}, {&y});
  }
}

Status SetupStatus(const std::string& order, std::vector<int> shape = {2, 3, 2, 2}) {
  Tensor x(shape), y;
  auto layer = MakeLayer(Permute(order));
  return layer->Setup({&x}, {&y});
}

TEST(PermuteLayerTest, OrdersThatAreNoAxisOrRepeatAreRefused) {
  EXPECT_EQ(SetupStatus("order: 0 order: 4").message(),
            "layer 'perm' (Permute): permute_param.order 4 is not an axis of the bottom, whose "
            "shape 2 3 2 2 (24) has 4 axes");
  EXPECT_EQ(SetupStatus("order: 4294967295").message(),
            "layer 'perm' (Permute): permute_param.order 4294967295 is not an axis of the bottom, "
            "whose shape 2 3 2 2 (24) has 4 axes");
  EXPECT_EQ(SetupStatus("order: 2 order: 1 order: 2").message(),
            "layer 'perm' (Permute): permute_param.order names axis 2 twice");
}

TEST(PermuteLayerTest, InPlaceAndAChangedNumberOfAxesAreRefused) {
  Tensor x({2, 3}), y;
  auto layer = MakeLayer(Permute("order: 1"));
  EXPECT_EQ(layer->Setup({&x}, {&x}).message(), "layer 'perm' (Permute): cannot run in place");
  auto other = MakeLayer(Permute("order: 1"));
  ASSERT_TRUE(other->Setup({&x}, {&y}).ok());
  Tensor z({2, 3, 4});
  EXPECT_EQ(other->Reshape({&z}, {&y}).message(),
            "layer 'perm' (Permute): bottom must keep its 2 axes, got shape 2 3 4 (24)");
}

}  // namespace
}  // namespace dtrain
