// MemoryDataLayer: Caffe's "MemoryData", batches from arrays a program hands to the net.
//
// No bottoms; two tops, data (batch_size, channels, height, width) and label (batch_size).
// Parameters: memory_data_param.batch_size, channels, height, width (all > 0). The arrays come
// through Reset (Caffe's MemoryDataLayer::Reset): n items, n a multiple of batch_size; each
// Forward copies the next batch_size items and wraps around after the last. The arrays are used
// as given: transform_param is not applied (a warning says so). Forward before Reset is an
// error. No gradient.
#pragma once

#include <vector>

#include "layers/layer.h"

namespace dtrain {

class MemoryDataLayer : public Layer {
 public:
  MemoryDataLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "MemoryData"; }
  int ExactNumBottomBlobs() const override { return 0; }
  int ExactNumTopBlobs() const override { return 2; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

  // Copies n items: data holds n * channels * height * width values, labels n. Reading starts
  // again at the first item.
  Status Reset(const std::vector<float>& data, const std::vector<float>& labels);
  int batch_size() const { return batch_size_; }

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {}

 private:
  int batch_size_ = 0, channels_ = 0, height_ = 0, width_ = 0;
  std::vector<float> data_, labels_;
  int64_t items_ = 0;     // 0 until Reset
  int64_t position_ = 0;  // the next batch's first item
};

}  // namespace dtrain
