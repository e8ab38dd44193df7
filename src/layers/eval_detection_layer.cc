#include "layers/eval_detection_layer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>

#include "proto/detection_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

using detection::CenterBox;
using detection::RegionIou;
using detection::RegionPredictedBox;
using detection::RegionSigmoid;

Status EvalDetectionLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const EvalDetectionParameter& p = param_.eval_detection_param();
  DT_ASSIGN_OR_RETURN(side_, Dimension("eval_detection_param.side", p.side()));
  DT_ASSIGN_OR_RETURN(num_class_, Dimension("eval_detection_param.num_class", p.num_class()));
  DT_ASSIGN_OR_RETURN(num_, Dimension("eval_detection_param.num_object", p.num_object()));
  if (p.biases_size() != 2 * static_cast<int64_t>(num_)) {
    return Error("eval_detection_param.biases must hold 2 num_object = " +
                 std::to_string(2 * int64_t{num_}) +
                 " values (a width and a height per anchor), got " +
                 std::to_string(p.biases_size()));
  }
  biases_.assign(p.biases().begin(), p.biases().end());
  for (size_t k = 0; k < biases_.size(); ++k) {
    if (!(std::isfinite(biases_[k]) && biases_[k] > 0)) {
      return Error("eval_detection_param.biases[" + std::to_string(k) + "] must be positive, got " +
                   std::to_string(biases_[k]));
    }
  }
  if (!(p.threshold() >= 0 && p.threshold() <= 1)) {
    return Error("eval_detection_param.threshold must be in [0, 1], got " +
                 std::to_string(p.threshold()));
  }
  if (!std::isfinite(p.nms())) return Error("eval_detection_param.nms must be finite");
  threshold_ = p.threshold();
  nms_ = p.nms();
  score_type_ = p.score_type();
  return Status::Ok();
}

Status EvalDetectionLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& x = *bottom[0];
  const int64_t per_image = int64_t{side_} * side_ * num_ * (num_class_ + 5);
  if (x.num_axes() < 1 || x.count(1) != per_image) {
    return Error("the predictions must hold side^2 num_object (num_class + 5) = " +
                 std::to_string(per_image) + " values per image, got " + x.ShapeString());
  }
  DT_ASSIGN_OR_RETURN(const int width,
                      Dimension("the top's width (num_class + 4 side^2 num_object)",
                                int64_t{num_class_} + 4 * int64_t{side_} * side_ * num_));
  top[0]->Reshape({x.shape(0), width});
  swapped_.resize(static_cast<size_t>(per_image));
  return Status::Ok();
}

void EvalDetectionLayer::Detect(const float* values) {
  const int stride = num_class_ + 5;
  boxes_.clear();
  std::vector<float> q(static_cast<size_t>(num_class_));
  for (int j = 0; j < side_; ++j) {
    for (int i = 0; i < side_; ++i) {
      for (int n = 0; n < num_; ++n) {
        const float* v = values + (static_cast<int64_t>(j * side_ + i) * num_ + n) * stride;
        Scored s;
        s.box = RegionPredictedBox(v, biases_[2 * n], biases_[2 * n + 1], i, j, side_);
        std::copy(v + 5, v + 5 + num_class_, q.begin());
        detection::RegionSoftmax(q.data(), num_class_);
        s.label = 0;
        for (int c = 1; c < num_class_; ++c) {
          if (q[static_cast<size_t>(c)] > q[static_cast<size_t>(s.label)]) s.label = c;
        }
        const float best = q[static_cast<size_t>(s.label)];
        const float objectness = RegionSigmoid(v[4]);
        s.score = score_type_ == EvalDetectionParameter::OBJ    ? objectness
                  : score_type_ == EvalDetectionParameter::PROB ? best
                                                                : objectness * best;
        boxes_.push_back(s);
      }
    }
  }
  kept_.clear();
  if (nms_ < 0) return;
  std::stable_sort(boxes_.begin(), boxes_.end(),
                   [](const Scored& a, const Scored& b) { return a.score > b.score; });
  std::vector<bool> suppressed(boxes_.size(), false);
  for (size_t a = 0; a < boxes_.size(); ++a) {
    if (suppressed[a]) continue;
    for (size_t b = a + 1; b < boxes_.size(); ++b) {
      if (!suppressed[b] && RegionIou(boxes_[a].box, boxes_[b].box) >= nms_) suppressed[b] = true;
    }
  }
  for (size_t a = 0; a < boxes_.size(); ++a) {
    if (!suppressed[a] && !(static_cast<double>(boxes_[a].score) < 0.005)) {
      kept_.push_back(boxes_[a]);
    }
  }
  std::stable_sort(kept_.begin(), kept_.end(),
                   [](const Scored& a, const Scored& b) { return a.label < b.label; });
}

void EvalDetectionLayer::Score(const std::vector<RegionTruth>& truths, float* out) const {
  std::map<int, std::vector<const RegionTruth*>> by_class;
  for (const RegionTruth& t : truths) {
    out[t.label] += 1;
    by_class[t.label].push_back(&t);
  }
  float* row = out + num_class_;
  std::map<int, std::vector<bool>> claimed;
  for (const Scored& d : kept_) {
    row[0] = static_cast<float>(d.label);
    row[1] = d.score;
    const auto found = by_class.find(d.label);
    if (found == by_class.end()) {
      row[3] = 1;
    } else {
      const std::vector<const RegionTruth*>& same = found->second;
      std::vector<bool>& taken = claimed[d.label];
      taken.resize(same.size(), false);
      float best = -1;
      int which = -1;
      for (size_t g = 0; g < same.size(); ++g) {
        const float iou = RegionIou(d.box, same[g]->box);
        if (iou > best) {
          best = iou;
          which = static_cast<int>(g);
        }
      }
      if (which >= 0 && best >= threshold_) {
        const bool first = !taken[static_cast<size_t>(which)];
        taken[static_cast<size_t>(which)] = true;
        row[first ? 2 : 3] = 1;
      }
    }
    row += 4;
  }
}

Status EvalDetectionLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& x = *bottom[0];
  const int items = x.shape(0);
  RegionLabelRules rules;
  rules.items = items;
  rules.num_class = num_class_;
  rules.ignore_item_past_end = true;
  const Status read = ReadRegionTruths(*bottom[1], rules, &truths_);
  if (!read.ok()) return Error(read.message());
  for (int64_t k = 0; k < x.count(); ++k) {
    if (!std::isfinite(x.data()[k])) {
      return Error("prediction value " + std::to_string(k) + " (image " +
                   std::to_string(k / x.count(1)) + ") is not finite");
    }
  }
  float* out = top[0]->mutable_data();
  std::fill(out, out + top[0]->count(), 0.f);
  const int64_t per_image = x.count(1);
  const int64_t spatial = x.num_axes() > 2 ? x.count(2) : 1;
  const int64_t channels = per_image / spatial;
  for (int b = 0; b < items; ++b) {
    // Intel's transposition of the image's (C, H W) values to (H W, C).
    const float* image = x.data() + b * per_image;
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t s = 0; s < spatial; ++s) swapped_[s * channels + c] = image[c * spatial + s];
    }
    Detect(swapped_.data());
    Score(truths_[static_cast<size_t>(b)], out + b * top[0]->count(1));
  }
  return Status::Ok();
}

}  // namespace dtrain
