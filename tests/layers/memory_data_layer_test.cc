// MemoryData: batches from the arrays given to Reset, in order and around; its errors.
#include "layers/memory_data_layer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/net.pb.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

const char kLayer[] =
    "name: 'mem' type: 'MemoryData' top: 'data' top: 'label' "
    "memory_data_param { batch_size: 2 channels: 1 height: 1 width: 2 }";

TEST(MemoryDataLayerTest, BatchesInOrderThenAround) {
  auto layer = MakeLayer(kLayer);
  Tensor data, label;
  ASSERT_TRUE(layer->Setup({}, {&data, &label}).ok());
  EXPECT_EQ(data.shape(), (std::vector<int>{2, 1, 1, 2}));
  EXPECT_EQ(label.shape(), (std::vector<int>{2, 1, 1, 1}));  // as Caffe's
  auto& memory = dynamic_cast<MemoryDataLayer&>(*layer);
  ASSERT_TRUE(memory.Reset({0, 1, 2, 3, 4, 5, 6, 7}, {10, 11, 12, 13}).ok());
  const std::vector<std::vector<float>> data_batches = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 2, 3}};
  const std::vector<std::vector<float>> label_batches = {{10, 11}, {12, 13}, {10, 11}};
  for (size_t b = 0; b < data_batches.size(); ++b) {
    ASSERT_TRUE(layer->Forward({}, {&data, &label}, nullptr).ok());
    EXPECT_EQ(testing::Values(data), data_batches[b]) << "batch " << b;
    EXPECT_EQ(testing::Values(label), label_batches[b]) << "batch " << b;
  }
  // A new Reset starts from its first item.
  ASSERT_TRUE(memory.Reset({9, 9, 8, 8}, {1, 2}).ok());
  ASSERT_TRUE(layer->Forward({}, {&data, &label}, nullptr).ok());
  EXPECT_EQ(testing::Values(data), (std::vector<float>{9, 9, 8, 8}));
}

TEST(MemoryDataLayerTest, ErrorsNameWhatIsWrong) {
  auto layer = MakeLayer(kLayer);
  Tensor data, label;
  ASSERT_TRUE(layer->Setup({}, {&data, &label}).ok());
  EXPECT_EQ(layer->Forward({}, {&data, &label}, nullptr).message(),
            "layer 'mem' (MemoryData): no data yet: a MemoryData layer is fed by its program "
            "(Reset) before the first forward");
  auto& memory = dynamic_cast<MemoryDataLayer&>(*layer);
  EXPECT_EQ(memory.Reset({0, 1, 2, 3, 4, 5}, {1, 2, 3}).message(),
            "layer 'mem' (MemoryData): Reset needs a positive multiple of batch_size (2) items, "
            "got 3 labels");
  EXPECT_EQ(memory.Reset({0, 1, 2}, {1, 2}).message(),
            "layer 'mem' (MemoryData): Reset got 3 data values for 2 items of 1 x 1 x 2 "
            "(expected 4)");
  auto unsized = MakeLayer(
      "name: 'mem' type: 'MemoryData' top: 'data' top: 'label' "
      "memory_data_param { batch_size: 2 channels: 1 height: 0 width: 2 }");
  EXPECT_EQ(unsized->Setup({}, {&data, &label}).message(),
            "layer 'mem' (MemoryData): memory_data_param needs positive batch_size, channels, "
            "height and width, got 2, 1, 0, 2");
}

// Fed through the Net API, as a program embedding dtrain would: a net trains on the arrays.
TEST(MemoryDataLayerTest, FeedsANetThroughTheApi) {
  NetParameter param;
  ASSERT_TRUE(ParseTextProto(
                  std::string("layer { ") + kLayer +
                      " }"
                      "layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'ip' "
                      "  inner_product_param { num_output: 2 weight_filler { type: 'xavier' } } }"
                      "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip' bottom: 'label' "
                      "top: 'loss' }",
                  "net", &param)
                  .ok());
  NetState state;
  state.set_phase(TRAIN);
  auto net = Net::Create(param, state, 1701);
  ASSERT_TRUE(net.ok()) << net.status().message();
  auto* memory = dynamic_cast<MemoryDataLayer*>((*net)->layer_by_name("mem"));
  ASSERT_NE(memory, nullptr);
  ASSERT_TRUE(memory->Reset({1, 0, 0, 1, 1, 0, 0, 1}, {0, 1, 0, 1}).ok());
  auto loss = (*net)->Forward();
  ASSERT_TRUE(loss.ok()) << loss.status().message();
  EXPECT_GT(*loss, 0.f);
}

}  // namespace
}  // namespace dtrain
