#include "layers/region_loss_layer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "proto/detection_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

using detection::CenterBox;
using detection::RegionIou;
using detection::RegionPredictedBox;
using detection::RegionSigmoid;

// d clipped to [-1, 1]: the derivative of the Huber loss Intel's box deltas follow.
float Clipped(float d) { return d > 1.f ? 1.f : (d < -1.f ? -1.f : d); }

}  // namespace

Status RegionLossLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const RegionLossParameter& p = param_.region_loss_param();
  if (!p.softmax_tree().empty()) {
    return Error("region_loss_param.softmax_tree (YOLO 9000's class hierarchy) is not supported");
  }
  if (!p.class_map().empty()) {
    return Error("region_loss_param.class_map (YOLO 9000's class remapping) is not supported");
  }
  if (p.softmax() != 1) {
    return Error("region_loss_param.softmax must be 1: the class scores are always a softmax");
  }
  if (p.coords() != 4) {
    return Error("region_loss_param.coords must be 4 (x, y, w, h), got " +
                 std::to_string(p.coords()));
  }
  DT_ASSIGN_OR_RETURN(side_, Dimension("region_loss_param.side", p.side()));
  DT_ASSIGN_OR_RETURN(num_class_, Dimension("region_loss_param.num_class", p.num_class()));
  DT_ASSIGN_OR_RETURN(num_, Dimension("region_loss_param.num", p.num()));
  if (p.biases_size() != 2 * static_cast<int64_t>(num_)) {
    return Error("region_loss_param.biases must hold 2 num = " + std::to_string(2 * int64_t{num_}) +
                 " values (a width and a height per anchor), got " +
                 std::to_string(p.biases_size()));
  }
  biases_.assign(p.biases().begin(), p.biases().end());
  for (size_t k = 0; k < biases_.size(); ++k) {
    if (!(std::isfinite(biases_[k]) && biases_[k] > 0)) {
      return Error("region_loss_param.biases[" + std::to_string(k) + "] must be positive, got " +
                   std::to_string(biases_[k]));
    }
  }
  const std::pair<const char*, float> reals[] = {{"object_scale", p.object_scale()},
                                                 {"noobject_scale", p.noobject_scale()},
                                                 {"class_scale", p.class_scale()},
                                                 {"coord_scale", p.coord_scale()},
                                                 {"thresh", p.thresh()}};
  for (const auto& [name, value] : reals) {
    if (!std::isfinite(value)) {
      return Error(std::string("region_loss_param.") + name + " must be finite");
    }
  }
  object_scale_ = p.object_scale();
  noobject_scale_ = p.noobject_scale();
  class_scale_ = p.class_scale();
  coord_scale_ = p.coord_scale();
  thresh_ = p.thresh();
  bias_match_ = p.bias_match() != 0;
  return Status::Ok();
}

Status RegionLossLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& x = *bottom[0];
  const int64_t channels = int64_t{num_} * (num_class_ + 5);
  if (x.num_axes() != 4 || x.shape(1) != channels || x.shape(2) != side_ || x.shape(3) != side_) {
    return Error(
        "the predictions must be (N, num (coords + num_class + 1) = " + std::to_string(channels) +
        ", side = " + std::to_string(side_) + ", side), got " + x.ShapeString());
  }
  channels_ = static_cast<int>(channels);
  top[0]->Reshape({});
  delta_.assign(static_cast<size_t>(x.count()), 0.f);
  probs_.resize(static_cast<size_t>(num_class_));
  return Status::Ok();
}

void RegionLossLayer::ImageDeltas(int b, const float* x) {
  const std::vector<RegionTruth>& truths = truths_[static_cast<size_t>(b)];
  float* d = delta_.data();
  // 1. Every anchor towards no object, unless its box already overlaps a truth well.
  for (int j = 0; j < side_; ++j) {
    for (int i = 0; i < side_; ++i) {
      const int cell = j * side_ + i;
      for (int n = 0; n < num_; ++n) {
        float p4[4];
        for (int k = 0; k < 4; ++k) p4[k] = x[At(b, cell, n, k)];
        const CenterBox pred =
            RegionPredictedBox(p4, biases_[2 * n], biases_[2 * n + 1], i, j, side_);
        float best = 0;
        for (const RegionTruth& t : truths) best = std::max(best, RegionIou(pred, t.box));
        const float p = RegionSigmoid(x[At(b, cell, n, 4)]);
        d[At(b, cell, n, 4)] = best > thresh_ ? 0.f : noobject_scale_ * p * p * (1 - p);
      }
    }
  }
  // 2. Each truth trains the anchor of its cell whose shape fits it best.
  const float s = static_cast<float>(side_);
  for (const RegionTruth& t : truths) {
    const int i = static_cast<int>(t.box.x * s), j = static_cast<int>(t.box.y * s);
    const int cell = j * side_ + i;
    const CenterBox shape{0, 0, t.box.w, t.box.h};
    float best_iou = 0;
    int best_b = 0, best_cell = 0, best_n = 0;  // Intel's default where no anchor overlaps
    for (int n = 0; n < num_; ++n) {
      CenterBox anchor{0, 0, biases_[2 * n] / s, biases_[2 * n + 1] / s};
      if (!bias_match_) {
        anchor.w = std::exp(x[At(b, cell, n, 2)]) * biases_[2 * n] / s;
        anchor.h = std::exp(x[At(b, cell, n, 3)]) * biases_[2 * n + 1] / s;
      }
      const float iou = RegionIou(anchor, shape);
      if (iou > best_iou) {
        best_iou = iou;
        best_b = b;
        best_cell = cell;
        best_n = n;
      }
    }
    const auto at = [&](int k) { return At(best_b, best_cell, best_n, k); };
    const float target[2] = {t.box.x * s - static_cast<float>(i),
                             t.box.y * s - static_cast<float>(j)};
    for (int k = 0; k < 2; ++k) {
      const float sig = RegionSigmoid(x[at(k)]);
      d[at(k)] = -coord_scale_ * Clipped(target[k] - sig) * sig * (1 - sig);
    }
    const float size_target[2] = {std::log(t.box.w * s / biases_[2 * best_n]),
                                  std::log(t.box.h * s / biases_[2 * best_n + 1])};
    for (int k = 0; k < 2; ++k) {
      d[at(k + 2)] = -coord_scale_ * Clipped(size_target[k] - x[at(k + 2)]);
    }
    const float p = RegionSigmoid(x[at(4)]);
    const float q = 1 - p;
    d[at(4)] = -object_scale_ * 2 * q * q * q * (p * q);
    for (int c = 0; c < num_class_; ++c) probs_[static_cast<size_t>(c)] = x[at(5 + c)];
    detection::RegionSoftmax(probs_.data(), num_class_);
    for (int c = 0; c < num_class_; ++c) {
      const float onehot = c == t.label ? 1.f : 0.f;
      d[at(5 + c)] = -class_scale_ * (onehot - probs_[static_cast<size_t>(c)]);
    }
  }
}

Status RegionLossLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& x = *bottom[0];
  const int items = x.shape(0);
  RegionLabelRules rules;
  rules.items = items;
  rules.num_class = num_class_;
  const Status read = ReadRegionTruths(*bottom[1], rules, &truths_);
  if (!read.ok()) return Error(read.message());
  const float s = static_cast<float>(side_);
  for (const auto& image : truths_) {
    for (const RegionTruth& t : image) {
      const std::string row = "label row " + std::to_string(t.row);
      if (!(t.box.w > 0 && t.box.h > 0)) {
        return Error(row + ": the box has no area (width " + std::to_string(t.box.w) + ", height " +
                     std::to_string(t.box.h) + ")");
      }
      const float cx = t.box.x * s, cy = t.box.y * s;
      if (!(cx > -1.f && cx < s && cy > -1.f && cy < s) || static_cast<int>(cx) >= side_ ||
          static_cast<int>(cy) >= side_) {
        return Error(row + ": the box's centre (" + std::to_string(t.box.x) + ", " +
                     std::to_string(t.box.y) + ") lies outside the " + std::to_string(side_) +
                     " x " + std::to_string(side_) + " grid");
      }
    }
  }
  std::fill(delta_.begin(), delta_.end(), 0.f);
  for (int b = 0; b < items; ++b) ImageDeltas(b, x.data());
  float loss = 0;
  for (float v : delta_) loss += v * v;
  top[0]->mutable_data()[0] = loss;
  return Status::Ok();
}

void RegionLossLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                   const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  const float alpha = top[0]->diff()[0] / static_cast<float>(bottom[0]->shape(0));
  float* dx = bottom[0]->mutable_diff();
  for (size_t k = 0; k < delta_.size(); ++k) dx[k] = alpha * delta_[k];
}

}  // namespace dtrain
