// Held buffers (core/tensor.h): a buffer held through HoldMutableData/HoldMutableDiff stays
// allocated and in place whatever the tensor does; where the tensor would grow it, swap it away or
// drop it, it moves to a copy and the holder is detached. Without holders nothing is copied.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/tensor.h"

namespace dtrain {
namespace {

std::vector<float> Values(const float* p, int n) { return std::vector<float>(p, p + n); }

TEST(TensorHold, AHeldBufferIsTheTensorsUntilItGrows) {
  Tensor t({3});
  std::shared_ptr<float> held = t.HoldMutableData();
  held.get()[1] = 5;
  EXPECT_EQ(t.data()[1], 5);  // the same memory
  EXPECT_TRUE(t.IsHeldData(held));
  t.Reshape({2});  // smaller: the buffer stays
  EXPECT_TRUE(t.IsHeldData(held));
  t.Reshape({1000});
  t.mutable_data()[999] = 1;  // grows: the tensor moves to a copy
  EXPECT_FALSE(t.IsHeldData(held));
  EXPECT_EQ(Values(t.data(), 3), (std::vector<float>{0, 5, 0}));  // the values came along
  held.get()[1] = 9;  // the holder's buffer is still allocated, and detached
  EXPECT_EQ(t.data()[1], 5);
}

TEST(TensorHold, AnUnheldBufferGrowsInPlaceOfItself) {
  Tensor t({3});
  std::shared_ptr<float> held = t.HoldMutableDiff();
  EXPECT_TRUE(t.IsHeldDiff(held));
  held.reset();
  t.Reshape({1000});
  t.mutable_diff()[999] = 2;
  std::shared_ptr<float> again = t.HoldMutableDiff();
  EXPECT_TRUE(t.IsHeldDiff(again));
  EXPECT_EQ(again.get()[999], 2);
}

TEST(TensorHold, SwapDataLeavesAHeldBufferToItsHolder) {
  Tensor t({3});
  std::copy_n(std::vector<float>{1, 2, 3}.begin(), 3, t.mutable_data());
  std::shared_ptr<float> held = t.HoldMutableData();
  std::vector<float> result = {7, 8, 9};
  t.SwapData(nullptr, &result);
  EXPECT_EQ(result, (std::vector<float>{1, 2, 3}));  // the caller gets the values, in a copy
  EXPECT_EQ(Values(t.data(), 3), (std::vector<float>{7, 8, 9}));
  EXPECT_FALSE(t.IsHeldData(held));
  result[0] = 100;  // the layer's buffer is not the holder's
  EXPECT_EQ(Values(held.get(), 3), (std::vector<float>{1, 2, 3}));
}

TEST(TensorHold, AHeldBufferOutlivesTheTensorAndShareData) {
  std::shared_ptr<float> held;
  Tensor other({4});
  other.SetData(3);
  {
    Tensor t({4});
    t.SetData(1);
    held = t.HoldMutableData();
    t.ShareData(other);  // drops its own values
    EXPECT_FALSE(t.IsHeldData(held));
    EXPECT_EQ(t.data()[0], 3);
  }
  held.get()[3] = 6;  // still allocated after the tensor is gone
  EXPECT_EQ(Values(held.get(), 4), (std::vector<float>{1, 1, 1, 6}));
  EXPECT_EQ(other.data()[3], 3);
}

TEST(TensorHold, AnEmptyTensorHoldsNothing) {
  Tensor t({0});
  EXPECT_EQ(t.HoldMutableData(), nullptr);
  EXPECT_FALSE(t.IsHeldData(nullptr));
}

}  // namespace
}  // namespace dtrain
