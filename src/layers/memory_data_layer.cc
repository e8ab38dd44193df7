#include "layers/memory_data_layer.h"

#include <algorithm>

#include "core/logging.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status MemoryDataLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const MemoryDataParameter& p = param_.memory_data_param();
  if (p.batch_size() == 0 || p.channels() == 0 || p.height() == 0 || p.width() == 0) {
    return Error("memory_data_param needs positive batch_size, channels, height and width, got " +
                 std::to_string(p.batch_size()) + ", " + std::to_string(p.channels()) + ", " +
                 std::to_string(p.height()) + ", " + std::to_string(p.width()));
  }
  DT_ASSIGN_OR_RETURN(batch_size_, Dimension("memory_data_param.batch_size", p.batch_size()));
  DT_ASSIGN_OR_RETURN(channels_, Dimension("memory_data_param.channels", p.channels()));
  DT_ASSIGN_OR_RETURN(height_, Dimension("memory_data_param.height", p.height()));
  DT_ASSIGN_OR_RETURN(width_, Dimension("memory_data_param.width", p.width()));
  if (param_.has_transform_param()) {
    DT_LOG(WARNING) << "layer '" << name() << "' (MemoryData): transform_param is not applied; "
                    << "the arrays given to Reset are used as they are";
  }
  return Status::Ok();
}

Status MemoryDataLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  top[0]->Reshape({batch_size_, channels_, height_, width_});
  top[1]->Reshape({batch_size_, 1, 1, 1});  // Caffe's label shape
  return Status::Ok();
}

Status MemoryDataLayer::Reset(const std::vector<float>& data, const std::vector<float>& labels) {
  const int64_t item_values = static_cast<int64_t>(channels_) * height_ * width_;
  if (batch_size_ == 0) return Error("Reset before Setup");
  const int64_t n = static_cast<int64_t>(labels.size());
  if (n == 0 || n % batch_size_ != 0) {
    return Error("Reset needs a positive multiple of batch_size (" + std::to_string(batch_size_) +
                 ") items, got " + std::to_string(n) + " labels");
  }
  if (static_cast<int64_t>(data.size()) != n * item_values) {
    return Error("Reset got " + std::to_string(data.size()) + " data values for " +
                 std::to_string(n) + " items of " + std::to_string(channels_) + " x " +
                 std::to_string(height_) + " x " + std::to_string(width_) + " (expected " +
                 std::to_string(n * item_values) + ")");
  }
  data_ = data;
  labels_ = labels;
  items_ = n;
  position_ = 0;
  return Status::Ok();
}

Status MemoryDataLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  if (items_ == 0) {
    return Error(
        "no data yet: a MemoryData layer is fed by its program (Reset) before the "
        "first forward");
  }
  const int64_t item_values = top[0]->count(1);
  std::copy_n(data_.begin() + position_ * item_values, batch_size_ * item_values,
              top[0]->mutable_data());
  std::copy_n(labels_.begin() + position_, batch_size_, top[1]->mutable_data());
  position_ = (position_ + batch_size_) % items_;
  return Status::Ok();
}

}  // namespace dtrain
