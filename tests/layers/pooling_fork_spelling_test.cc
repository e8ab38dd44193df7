// Pooling's fork spelling: `ceil_mode` (PyTorch-to-Caffe converters and several forks) is read
// as Caffe's round_mode; a contradiction between the two is an error naming both.
#include <gtest/gtest.h>

#include <vector>

#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

// The top shape of a 3x3 max pool, stride 2, over a 1x1x6x6 bottom (Caffe: ceil -> 3x3,
// floor -> 2x2), or {} when setup fails (its message in `error`).
std::vector<int> PooledShape(const std::string& fields, std::string* error = nullptr) {
  auto layer = MakeLayer(
      "name: 'pool' type: 'Pooling' pooling_param { pool: MAX kernel_size: 3 "
      "stride: 2 " +
      fields + " }");
  if (!layer) return {};
  Tensor bottom({1, 1, 6, 6}), top;
  Status s = layer->Setup({&bottom}, {&top});
  if (!s.ok()) {
    if (error) *error = s.message();
    return {};
  }
  return top.shape();
}

TEST(PoolingLayerTest, CeilModeFalseIsRoundModeFloor) {
  EXPECT_EQ(PooledShape(""), (std::vector<int>{1, 1, 3, 3}));
  EXPECT_EQ(PooledShape("ceil_mode: true"), (std::vector<int>{1, 1, 3, 3}));
  EXPECT_EQ(PooledShape("ceil_mode: false"), (std::vector<int>{1, 1, 2, 2}));
  EXPECT_EQ(PooledShape("round_mode: FLOOR"), (std::vector<int>{1, 1, 2, 2}));
  EXPECT_EQ(PooledShape("round_mode: FLOOR ceil_mode: false"), (std::vector<int>{1, 1, 2, 2}));
  std::string error;
  EXPECT_TRUE(PooledShape("round_mode: CEIL ceil_mode: false", &error).empty());
  EXPECT_NE(error.find("ceil_mode: false contradicts round_mode: CEIL"), std::string::npos)
      << error;
}

}  // namespace
}  // namespace dtrain
