#include "testing/in_place_check.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain::testing {

void ExpectInPlaceMatchesOutOfPlace(const std::string& prototxt, const Tensor& input,
                                    bool check_backward) {
  LayerPtr layer = MakeLayer(prototxt);
  LayerPtr in_place = MakeLayer(prototxt);
  ASSERT_TRUE(layer && in_place);
  Tensor x(input.shape()), y, z(input.shape()), dy(input.shape());
  x.CopyFrom(input);
  z.CopyFrom(input);
  FillGaussian(&dy, 4);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(in_place->Setup({&z}, {&z}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  ASSERT_TRUE(in_place->Forward({&z}, {&z}, nullptr).ok());
  const int64_t n = x.count();
  for (int64_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(z.data()[i], y.data()[i]) << "element " << i;
  if (!check_backward) return;
  std::copy(dy.data(), dy.data() + n, y.mutable_diff());
  std::copy(dy.data(), dy.data() + n, z.mutable_diff());
  layer->Backward({&y}, {true}, {&x});
  in_place->Backward({&z}, {true}, {&z});
  for (int64_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(z.diff()[i], x.diff()[i]) << "element " << i;
}

}  // namespace dtrain::testing
