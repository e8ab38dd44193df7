#include "layers/embed_layer.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/filler.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status EmbedLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const EmbedParameter& p = param_.embed_param();
  if (p.num_output() == 0) return Error("embed_param.num_output must be positive");
  if (p.input_dim() == 0) return Error("embed_param.input_dim must be positive");
  DT_ASSIGN_OR_RETURN(num_output_, Dimension("embed_param.num_output", p.num_output()));
  DT_ASSIGN_OR_RETURN(input_dim_, Dimension("embed_param.input_dim", p.input_dim()));
  bias_term_ = p.bias_term();
  const std::vector<int> weight_shape{input_dim_, num_output_};
  if (!blobs_.empty()) {
    const size_t expected = bias_term_ ? 2 : 1;
    if (blobs_.size() != expected) {
      return Error("expected " + std::to_string(expected) + " learnable blob(s), got " +
                   std::to_string(blobs_.size()));
    }
    if (blobs_[0]->shape() != weight_shape) {
      return Error("incorrect weight shape: expected " + ShapeToString(weight_shape) + ", got " +
                   blobs_[0]->ShapeString());
    }
    if (bias_term_ && blobs_[1]->shape() != std::vector<int>{num_output_}) {
      return Error("incorrect bias shape: expected " + ShapeToString({num_output_}) + ", got " +
                   blobs_[1]->ShapeString());
    }
    return Status::Ok();
  }
  for (const auto& [filler, what] : {std::pair{&p.weight_filler(), "weight_filler"},
                                     std::pair{&p.bias_filler(), "bias_filler"}}) {
    Status valid = ValidateFiller(*filler);
    if (!valid.ok()) {
      return Status(valid.code(),
                    Error("embed_param." + std::string(what) + ": " + valid.message()).message());
    }
  }
  blobs_.push_back(std::make_shared<Tensor>(weight_shape));
  DT_RETURN_IF_ERROR(Fill(p.weight_filler(), rng_, blobs_[0].get()));
  if (bias_term_) {
    blobs_.push_back(std::make_shared<Tensor>(std::vector<int>{num_output_}));
    DT_RETURN_IF_ERROR(Fill(p.bias_filler(), rng_, blobs_[1].get()));
  }
  return Status::Ok();
}

Status EmbedLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0]) return Error("cannot run in place");
  std::vector<int> shape = bottom[0]->shape();
  shape.push_back(num_output_);
  top[0]->Reshape(shape);
  return Status::Ok();
}

Status EmbedLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* index = bottom[0]->data();
  const int64_t m = bottom[0]->count();
  for (int64_t i = 0; i < m; ++i) {
    if (!(index[i] >= 0 && index[i] < input_dim_) || std::floor(index[i]) != index[i]) {
      return Error(
          "bottom value " + std::to_string(index[i]) + " at position " + std::to_string(i) +
          " is not an integer index in [0, input_dim = " + std::to_string(input_dim_) + ")");
    }
  }
  const float* w = blobs_[0]->data();
  const float* bias = bias_term_ ? blobs_[1]->data() : nullptr;
  float* y = top[0]->mutable_data();
  for (int64_t i = 0; i < m; ++i, y += num_output_) {
    const float* row = w + static_cast<int64_t>(index[i]) * num_output_;
    std::copy(row, row + num_output_, y);
    if (bias) {
      for (int j = 0; j < num_output_; ++j) y[j] += bias[j];
    }
  }
  return Status::Ok();
}

void EmbedLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                              const TensorVec& bottom) {
  // The indices get no gradient (BottomHasGradient); Forward checked every index.
  const float* index = bottom[0]->data();
  const float* dy = top[0]->diff();
  const int64_t m = bottom[0]->count();
  if (param_propagate_down(0)) {
    float* dw = blobs_[0]->mutable_diff();
    for (int64_t i = 0; i < m; ++i) {
      float* row = dw + static_cast<int64_t>(index[i]) * num_output_;
      const float* g = dy + i * num_output_;
      for (int j = 0; j < num_output_; ++j) row[j] += g[j];
    }
  }
  if (bias_term_ && param_propagate_down(1)) {
    float* db = blobs_[1]->mutable_diff();
    for (int64_t i = 0; i < m; ++i) {
      const float* g = dy + i * num_output_;
      for (int j = 0; j < num_output_; ++j) db[j] += g[j];
    }
  }
}

}  // namespace dtrain
