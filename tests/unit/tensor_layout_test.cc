// A tensor's values in a second layout (core/tensor.h): converted only when stale, current for
// plain readers after any write, shared by aliasing tensors, landed in plain by a reshape.
#include <gtest/gtest.h>

#include <vector>

#include "core/tensor.h"

namespace dtrain {
namespace {

// The values in reverse order followed by `padding` unused floats; counts its conversions.
class ReversedLayout : public TensorLayout {
 public:
  ReversedLayout(int64_t count, int64_t padding) : count_(count), padding_(padding) {}
  size_t bytes() const override { return (count_ + padding_) * sizeof(float); }
  bool Equals(const TensorLayout& other) const override {
    const auto* o = dynamic_cast<const ReversedLayout*>(&other);
    return o && o->count_ == count_ && o->padding_ == padding_;
  }
  void ToPlain(const float* from, float* plain) const override {
    ++to_plain;
    for (int64_t i = 0; i < count_; ++i) plain[i] = from[count_ - 1 - i];
  }
  void FromPlain(const float* plain, float* to) const override {
    ++from_plain;
    for (int64_t i = 0; i < count_; ++i) to[count_ - 1 - i] = plain[i];
    for (int64_t i = 0; i < padding_; ++i) to[count_ + i] = 0;
  }
  std::string name() const override { return "reversed"; }

  mutable int to_plain = 0, from_plain = 0;

 private:
  int64_t count_, padding_;
};

void Fill(Tensor* t, std::vector<float> values) {
  std::copy(values.begin(), values.end(), t->mutable_data());
}

TEST(TensorLayout, ReadingInALayoutConvertsOnceAndPlainStaysCurrent) {
  Tensor t({4});
  Fill(&t, {1, 2, 3, 4});
  auto layout = std::make_shared<ReversedLayout>(4, 0);
  const float* r = t.data_in(layout);
  EXPECT_EQ(std::vector<float>(r, r + 4), (std::vector<float>{4, 3, 2, 1}));
  t.data_in(layout);
  t.data_in(std::make_shared<ReversedLayout>(4, 0));  // an equal layout is the same one
  EXPECT_EQ(layout->from_plain, 1);
  EXPECT_EQ(t.data()[0], 1);
  EXPECT_EQ(layout->to_plain, 0);  // both copies were current
}

TEST(TensorLayout, WritingInALayoutMakesPlainReadersConvert) {
  Tensor t({3});
  Fill(&t, {1, 2, 3});
  auto layout = std::make_shared<ReversedLayout>(3, 0);
  float* w = t.data_to(layout);
  EXPECT_EQ(layout->from_plain, 0);  // written over, not converted
  w[0] = 30, w[1] = 20, w[2] = 10;
  ASSERT_TRUE(SameLayout(t.data_layout(), layout));
  EXPECT_EQ(std::vector<float>(t.data(), t.data() + 3), (std::vector<float>{10, 20, 30}));
  EXPECT_EQ(layout->to_plain, 1);
  t.mutable_data()[0] = 5;  // a plain write makes the layout copy stale
  EXPECT_EQ(t.data_layout(), nullptr);
  EXPECT_EQ(t.data_in(layout)[2], 5);
}

TEST(TensorLayout, SwapDataHandsBackTheInputAndKeepsTheResult) {
  Tensor t({3});
  Fill(&t, {1, 2, 3});
  Tensor alias;
  alias.ReshapeLike(t);
  alias.ShareData(t);
  auto layout = std::make_shared<ReversedLayout>(3, 0);
  t.data_in(layout);
  std::vector<float> result = {30, 20, 10};  // 10 20 30 in the reversed layout
  t.SwapData(layout, &result);
  EXPECT_EQ(result, (std::vector<float>{3, 2, 1}));  // the input, in the layout
  ASSERT_TRUE(SameLayout(alias.data_layout(), layout));
  EXPECT_EQ(std::vector<float>(alias.data(), alias.data() + 3), (std::vector<float>{10, 20, 30}));

  std::vector<float> plain = {7, 8, 9};
  t.SwapData(nullptr, &plain);
  EXPECT_EQ(t.data_layout(), nullptr);
  EXPECT_EQ(plain, (std::vector<float>{10, 20, 30}));  // converted back by the read above
  EXPECT_EQ(t.data()[2], 9);
}

TEST(TensorLayout, ADiscardedDiffIsNeverConverted) {
  Tensor t({4});
  auto layout = std::make_shared<ReversedLayout>(4, 0);
  t.diff_to(layout)[0] = 1;
  t.DiscardDiff();
  t.mutable_diff()[0] = 2;  // the diff planner's next blob writes its own values
  EXPECT_EQ(layout->to_plain, 0);
  EXPECT_EQ(t.diff_layout(), nullptr);
  EXPECT_EQ(t.diff()[0], 2);
}

TEST(TensorLayout, DiffIsKeptApartFromData) {
  Tensor t({2});
  auto layout = std::make_shared<ReversedLayout>(2, 0);
  float* d = t.diff_to(layout);
  d[0] = 7, d[1] = 8;
  EXPECT_EQ(t.data_layout(), nullptr);
  EXPECT_EQ(t.diff()[0], 8);
  EXPECT_EQ(t.diff()[1], 7);
}

TEST(TensorLayout, AliasesSeeTheWriteAndAReshapeLandsItInPlain) {
  Tensor t({2, 3});
  Tensor alias({6});
  alias.ShareData(t);
  auto layout = std::make_shared<ReversedLayout>(6, 2);
  float* w = t.data_to(layout);
  for (int i = 0; i < 6; ++i) w[i] = static_cast<float>(i);
  EXPECT_EQ(alias.data()[0], 5);  // the flattened alias reads the current values
  float* again = t.data_to(layout);
  again[0] = 50;
  t.Reshape({3, 2});
  EXPECT_EQ(t.data_layout(), nullptr);
  EXPECT_EQ(t.data()[5], 50);
}

TEST(TensorLayout, ElementwiseLayersFollowOnlyUnpaddedLayouts) {
  Tensor a({4}), b({4});
  auto padded = std::make_shared<ReversedLayout>(4, 4);
  auto exact = std::make_shared<ReversedLayout>(4, 0);
  a.data_to(padded);
  EXPECT_EQ(ElementwiseLayout({&a, &b}, false), nullptr);
  b.data_to(exact);
  EXPECT_TRUE(SameLayout(ElementwiseLayout({&a, &b}, false), exact));
  EXPECT_EQ(ElementwiseLayout({&a, &b}, true), nullptr);
}

TEST(TensorLayout, SetAndCopyFromWorkOnTheCurrentValues) {
  Tensor t({3});
  auto layout = std::make_shared<ReversedLayout>(3, 0);
  float* w = t.data_to(layout);
  w[0] = 1, w[1] = 2, w[2] = 3;
  Tensor copy;
  copy.CopyFrom(t);
  EXPECT_EQ(copy.data()[0], 3);
  t.SetData(9);
  EXPECT_EQ(t.data_in(layout)[1], 9);
}

}  // namespace
}  // namespace dtrain
