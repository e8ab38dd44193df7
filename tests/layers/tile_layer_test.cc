#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

std::string Tile(const std::string& param) {
  return R"(name: "tile" type: "Tile" tile_param { )" + param + " }";
}

TEST(TileLayerTest, RepeatsAlongTheDefaultAxisOne) {
  Tensor x({2, 2}), y;
  FillValues(&x, {1, 2, 3, 4});
  auto layer = MakeLayer(Tile("tiles: 2"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 4}));
  EXPECT_EQ(Values(y), (std::vector<float>{1, 2, 1, 2, 3, 4, 3, 4}));
}

TEST(TileLayerTest, RepeatsWholeBlocksAlongAxisZero) {
  Tensor x({2, 2}), y;
  FillValues(&x, {1, 2, 3, 4});
  auto layer = MakeLayer(Tile("axis: 0 tiles: 3"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{6, 2}));
  EXPECT_EQ(Values(y), (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}));
}

TEST(TileLayerTest, NegativeAxisCountsFromTheEnd) {
  Tensor x({1, 2, 2}), y;
  FillValues(&x, {1, 2, 3, 4});
  auto layer = MakeLayer(Tile("axis: -1 tiles: 2"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(Values(y), (std::vector<float>{1, 2, 1, 2, 3, 4, 3, 4}));
}

TEST(TileLayerTest, BackwardSumsTheDiffsOfEveryCopy) {
  Tensor x({2, 2}), y;
  auto layer = MakeLayer(Tile("tiles: 3"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  float* dy = y.mutable_diff();
  for (int i = 0; i < 12; ++i) dy[i] = static_cast<float>(i);  // row 0: 0..5, row 1: 6..11
  layer->Backward({&y}, {true}, {&x});
  // x[0][0] gets 0 + 2 + 4, x[0][1] 1 + 3 + 5, x[1][0] 6 + 8 + 10, x[1][1] 7 + 9 + 11.
  EXPECT_EQ(std::vector<float>(x.diff(), x.diff() + 4), (std::vector<float>{6, 9, 24, 27}));
}

TEST(TileLayerTest, Gradient) {
  for (const char* param : {"tiles: 3", "axis: 0 tiles: 2", "axis: 2 tiles: 4"}) {
    SCOPED_TRACE(param);
    Tensor x({2, 3, 2}), y;
    testing::FillGaussian(&x, 11);
    auto layer = MakeLayer(Tile(param));
    testing::CheckGradients(*layer, {&x}, {&y});
  }
}

Status SetupStatus(const std::string& prototxt) {
  Tensor x({2, 3}), y;
  auto layer = MakeLayer(prototxt);
  return layer->Setup({&x}, {&y});
}

TEST(TileLayerTest, TilesMustBeGivenAndPositive) {
  EXPECT_EQ(SetupStatus(R"(name: "tile" type: "Tile")").message(),
            "layer 'tile' (Tile): tile_param.tiles must be given");
  EXPECT_EQ(SetupStatus(Tile("tiles: 0")).message(),
            "layer 'tile' (Tile): tile_param.tiles must be positive, got 0");
  EXPECT_EQ(SetupStatus(Tile("tiles: -2")).message(),
            "layer 'tile' (Tile): tile_param.tiles must be positive, got -2");
}

TEST(TileLayerTest, AxisOutOfRangeIsAnError) {
  EXPECT_EQ(SetupStatus(Tile("axis: 2 tiles: 2")).message(),
            "layer 'tile' (Tile): tile_param.axis 2 is out of range for bottom of shape 2 3 (6)");
}

}  // namespace
}  // namespace dtrain
