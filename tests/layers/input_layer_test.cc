#include <gtest/gtest.h>

#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

TEST(InputLayerTest, OneShapeForAllTops) {
  auto layer = MakeLayer(R"(name: "in" type: "Input" top: "a" top: "b"
                            input_param { shape { dim: 2 dim: 3 } })");
  Tensor a, b;
  ASSERT_TRUE(layer->Setup({}, {&a, &b}).ok());
  EXPECT_EQ(a.shape(), (std::vector<int>{2, 3}));
  EXPECT_EQ(b.shape(), (std::vector<int>{2, 3}));
  // Forward leaves the values to whoever fills them.
  a.mutable_data()[0] = 5.f;
  ASSERT_TRUE(layer->Forward({}, {&a, &b}, nullptr).ok());
  EXPECT_EQ(a.data()[0], 5.f);
}

TEST(InputLayerTest, OneShapePerTop) {
  auto layer = MakeLayer(R"(name: "in" type: "Input" top: "data" top: "label"
                            input_param { shape { dim: 4 dim: 1 dim: 2 dim: 2 }
                                          shape { dim: 4 } })");
  Tensor data, label;
  ASSERT_TRUE(layer->Setup({}, {&data, &label}).ok());
  EXPECT_EQ(data.shape(), (std::vector<int>{4, 1, 2, 2}));
  EXPECT_EQ(label.shape(), (std::vector<int>{4}));
}

TEST(InputLayerTest, WrongNumberOfShapesIsAnError) {
  auto layer = MakeLayer(R"(name: "in" type: "Input" top: "a" top: "b" top: "c"
                            input_param { shape { dim: 1 } shape { dim: 2 } })");
  Tensor a, b, c;
  Status s = layer->Setup({}, {&a, &b, &c});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'in'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
