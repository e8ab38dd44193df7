#include <gtest/gtest.h>

#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

TEST(DummyDataLayerTest, ConstantFillerFillsOnceAtSetup) {
  auto layer = MakeLayer(R"(name: "dummy" type: "DummyData" top: "a"
      dummy_data_param { shape { dim: 2 dim: 3 } data_filler { type: "constant" value: 7 } })");
  Tensor a;
  ASSERT_TRUE(layer->Setup({}, {&a}).ok());
  ASSERT_EQ(a.shape(), (std::vector<int>{2, 3}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(a.data()[i], 7.f);
  // As in Caffe, a constant top is not refilled by Forward.
  a.mutable_data()[0] = -1.f;
  ASSERT_TRUE(layer->Forward({}, {&a}, nullptr).ok());
  EXPECT_EQ(a.data()[0], -1.f);
  EXPECT_EQ(a.data()[1], 7.f);
}

TEST(DummyDataLayerTest, NoFillerMeansZeros) {
  auto layer = MakeLayer(R"(name: "dummy" type: "DummyData" top: "a"
                            dummy_data_param { shape { dim: 4 } })");
  Tensor a({4});
  a.SetData(3.f);
  ASSERT_TRUE(layer->Setup({}, {&a}).ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a.data()[i], 0.f);
}

TEST(DummyDataLayerTest, RandomFillerRefillsEveryForward) {
  auto layer = MakeLayer(R"(name: "dummy" type: "DummyData" top: "a" top: "b"
      dummy_data_param { shape { dim: 2 dim: 5 }
                         data_filler { type: "gaussian" std: 1 }
                         data_filler { type: "constant" value: 2 } })");
  Tensor a, b;
  ASSERT_TRUE(layer->Setup({}, {&a, &b}).ok());
  ASSERT_TRUE(layer->Forward({}, {&a, &b}, nullptr).ok());
  const std::vector<float> first(a.data(), a.data() + a.count());
  ASSERT_TRUE(layer->Forward({}, {&a, &b}, nullptr).ok());
  int changed = 0;
  for (int i = 0; i < 10; ++i) changed += a.data()[i] != first[i];
  EXPECT_EQ(changed, 10);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(b.data()[i], 2.f);
}

TEST(DummyDataLayerTest, WithoutRefillTheFirstDrawStays) {
  auto layer = MakeLayer(R"(name: "dummy" type: "DummyData" top: "a"
      dummy_data_param { refill: false shape { dim: 2 dim: 5 }
                         data_filler { type: "gaussian" std: 1 } })");
  Tensor a;
  ASSERT_TRUE(layer->Setup({}, {&a}).ok());
  const std::vector<float> first(a.data(), a.data() + a.count());
  int nonzero = 0;
  for (float v : first) nonzero += v != 0.f;
  EXPECT_GT(nonzero, 5);  // filled at setup
  ASSERT_TRUE(layer->Forward({}, {&a}, nullptr).ok());
  ASSERT_TRUE(layer->Forward({}, {&a}, nullptr).ok());
  EXPECT_EQ(std::vector<float>(a.data(), a.data() + a.count()), first);
}

TEST(DummyDataLayerTest, LegacyDimensionsOncePerTopOrForAll) {
  auto layer = MakeLayer(R"(name: "dummy" type: "DummyData" top: "a" top: "b"
      dummy_data_param { num: 2 num: 1 channels: 3 height: 4 width: 5 })");
  Tensor a, b;
  ASSERT_TRUE(layer->Setup({}, {&a, &b}).ok());
  EXPECT_EQ(a.shape(), (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(b.shape(), (std::vector<int>{1, 3, 4, 5}));
}

TEST(DummyDataLayerTest, ShapeAndLegacyTogetherIsAnError) {
  auto layer = MakeLayer(R"(name: "dummy" type: "DummyData" top: "a"
      dummy_data_param { shape { dim: 2 } num: 2 channels: 1 height: 1 width: 1 })");
  Tensor a;
  Status s = layer->Setup({}, {&a});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'dummy'"), std::string::npos) << s.message();
}

TEST(DummyDataLayerTest, UnknownFillerIsAnError) {
  auto layer = MakeLayer(R"(name: "dummy" type: "DummyData" top: "a"
      dummy_data_param { shape { dim: 2 } data_filler { type: "nonsense" } })");
  Tensor a;
  Status s = layer->Setup({}, {&a});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'dummy'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("nonsense"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
