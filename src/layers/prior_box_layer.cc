#include "layers/prior_box_layer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "proto/detection_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

std::string Number(float value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

bool PositiveFinite(float value) { return value > 0.f && std::isfinite(value); }

// Caffe's legacy height (axis 2) and width (axis 3): 1 where the tensor has no such axis.
int LegacyDim(const Tensor& t, int axis) { return axis < t.num_axes() ? t.shape(axis) : 1; }

}  // namespace

Status PriorBoxLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const PriorBoxParameter& p = param_.prior_box_param();
  if (p.min_size_size() == 0) return Error("prior_box_param.min_size must be given");
  // A box side in pixels: positive, and an int once truncated (as Intel Caffe truncates it).
  auto whole_pixels = [&](const char* field, float value) -> StatusOr<int> {
    if (!(value > 0.f)) {
      return Error(std::string("prior_box_param.") + field + " must be positive, got " +
                   Number(value));
    }
    if (value >= 2147483648.f) {
      return Error(std::string("prior_box_param.") + field + " is " + Number(value) +
                   ", more than a box may be (2147483647 pixels)");
    }
    return static_cast<int>(value);
  };
  min_sizes_.clear();
  for (const float size : p.min_size()) {
    DT_ASSIGN_OR_RETURN(const int pixels, whole_pixels("min_size", size));
    min_sizes_.push_back(pixels);
  }
  max_sizes_.clear();
  if (p.max_size_size() > 0) {
    if (p.max_size_size() != p.min_size_size()) {
      return Error("prior_box_param.max_size must be given once per min_size (" +
                   std::to_string(p.min_size_size()) + " times) or not at all, got " +
                   std::to_string(p.max_size_size()) + " values");
    }
    for (int i = 0; i < p.max_size_size(); ++i) {
      DT_ASSIGN_OR_RETURN(const int pixels, whole_pixels("max_size", p.max_size(i)));
      if (!(p.max_size(i) > p.min_size(i))) {
        return Error("prior_box_param.max_size " + Number(p.max_size(i)) +
                     " must be more than its min_size " + Number(p.min_size(i)));
      }
      max_sizes_.push_back(pixels);
    }
  }

  // Every ratio in the order Intel Caffe lists them, 1 first; a ratio within 1e-6 of one already
  // listed is dropped. Only those other than 1 make boxes beyond the min_size square.
  std::vector<float> listed = {1.f};
  auto already_listed = [&](float r) {
    return std::any_of(listed.begin(), listed.end(),
                       [r](float have) { return std::fabs(r - have) < 1e-6f; });
  };
  for (const float ratio : p.aspect_ratio()) {
    if (!PositiveFinite(ratio)) {
      return Error("prior_box_param.aspect_ratio must be positive and finite, got " +
                   Number(ratio));
    }
    if (already_listed(ratio)) continue;
    listed.push_back(ratio);
    if (p.flip()) listed.push_back(static_cast<float>(1.0 / ratio));
  }
  ratios_.clear();
  for (const float r : listed) {
    if (std::fabs(r - 1.0) >= 1e-6) ratios_.push_back(r);
  }
  num_priors_ = static_cast<int>(min_sizes_.size() * (1 + ratios_.size()) + max_sizes_.size());
  clip_ = p.clip();

  if (p.variance_size() != 0 && p.variance_size() != 1 && p.variance_size() != 4) {
    return Error("prior_box_param.variance must be given once, 4 times or not at all, got " +
                 std::to_string(p.variance_size()) + " values");
  }
  variances_.assign(p.variance().begin(), p.variance().end());
  if (variances_.empty()) variances_.push_back(0.1f);
  for (const float v : variances_) {
    if (!PositiveFinite(v)) {
      return Error("prior_box_param.variance must be positive and finite, got " + Number(v));
    }
  }

  const bool h_or_w = p.has_img_h() || p.has_img_w();
  if (h_or_w && p.has_img_size()) {
    return Error("prior_box_param: give img_size or img_h and img_w, not both");
  }
  img_h_ = img_w_ = 0;
  if (h_or_w) {
    DT_ASSIGN_OR_RETURN(img_h_, Dimension("prior_box_param.img_h", p.img_h()));
    DT_ASSIGN_OR_RETURN(img_w_, Dimension("prior_box_param.img_w", p.img_w()));
  } else if (p.has_img_size()) {
    DT_ASSIGN_OR_RETURN(img_h_, Dimension("prior_box_param.img_size", p.img_size()));
    img_w_ = img_h_;
  }

  const bool step_h_or_w = p.has_step_h() || p.has_step_w();
  if (step_h_or_w && p.has_step()) {
    return Error("prior_box_param: give step or step_h and step_w, not both");
  }
  step_h_ = step_w_ = 0.f;
  auto positive_step = [&](const char* field, float value) {
    return PositiveFinite(value) ? Status::Ok()
                                 : Error(std::string("prior_box_param.") + field +
                                         " must be positive and finite, got " + Number(value));
  };
  if (step_h_or_w) {
    DT_RETURN_IF_ERROR(positive_step("step_h", p.step_h()));
    DT_RETURN_IF_ERROR(positive_step("step_w", p.step_w()));
    step_h_ = p.step_h();
    step_w_ = p.step_w();
  } else if (p.has_step()) {
    DT_RETURN_IF_ERROR(positive_step("step", p.step()));
    step_h_ = step_w_ = p.step();
  }

  offset_ = p.offset();
  if (!std::isfinite(offset_)) {
    return Error("prior_box_param.offset must be finite, got " + Number(offset_));
  }
  return Status::Ok();
}

Status PriorBoxLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const char* names[] = {"bottom 0 (the feature map)", "bottom 1 (the image)"};
  for (int i = 0; i < 2; ++i) {
    if (bottom[i]->num_axes() > 4) {
      return Error(std::string(names[i]) + " must have at most 4 axes (N, C, H, W), got shape " +
                   bottom[i]->ShapeString());
    }
  }
  layer_h_ = LegacyDim(*bottom[0], 2);
  layer_w_ = LegacyDim(*bottom[0], 3);
  if (layer_h_ == 0 || layer_w_ == 0) {
    return Error("bottom 0 (the feature map) has no cells, shape " + bottom[0]->ShapeString());
  }
  if (img_h_ > 0) {
    image_h_ = img_h_;
    image_w_ = img_w_;
  } else {
    image_h_ = LegacyDim(*bottom[1], 2);
    image_w_ = LegacyDim(*bottom[1], 3);
    if (image_h_ == 0 || image_w_ == 0) {
      return Error("bottom 1 (the image) has height or width 0, shape " + bottom[1]->ShapeString() +
                   ", and prior_box_param gives no image size");
    }
  }
  const int64_t values = static_cast<int64_t>(layer_h_) * layer_w_ * num_priors_ * 4;
  DT_ASSIGN_OR_RETURN(const int length,
                      Dimension("the boxes' length (H x W x priors x 4)", values));
  top[0]->Reshape({1, 2, length});
  return Status::Ok();
}

Status PriorBoxLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  ComputePriors(top[0]->mutable_data());
  return Status::Ok();
}

void PriorBoxLayer::ComputePriors(float* out) const {
  // Intel Caffe's arithmetic: centres and box sides in float, each coordinate in double.
  const float step_w = step_w_ > 0.f ? step_w_ : static_cast<float>(image_w_) / layer_w_;
  const float step_h = step_h_ > 0.f ? step_h_ : static_cast<float>(image_h_) / layer_h_;
  const int64_t length = static_cast<int64_t>(layer_h_) * layer_w_ * num_priors_ * 4;
  int64_t k = 0;
  auto box = [&](float cx, float cy, float width, float height) {
    out[k++] = static_cast<float>((cx - width / 2.) / image_w_);
    out[k++] = static_cast<float>((cy - height / 2.) / image_h_);
    out[k++] = static_cast<float>((cx + width / 2.) / image_w_);
    out[k++] = static_cast<float>((cy + height / 2.) / image_h_);
  };
  for (int h = 0; h < layer_h_; ++h) {
    for (int w = 0; w < layer_w_; ++w) {
      const float cx = (w + offset_) * step_w;
      const float cy = (h + offset_) * step_h;
      for (size_t s = 0; s < min_sizes_.size(); ++s) {
        const int min_size = min_sizes_[s];
        box(cx, cy, static_cast<float>(min_size), static_cast<float>(min_size));
        if (!max_sizes_.empty()) {
          const auto side = static_cast<float>(
              std::sqrt(static_cast<double>(static_cast<int64_t>(min_size) * max_sizes_[s])));
          box(cx, cy, side, side);
        }
        for (const float r : ratios_) {
          const double root = std::sqrt(static_cast<double>(r));
          box(cx, cy, static_cast<float>(min_size * root), static_cast<float>(min_size / root));
        }
      }
    }
  }
  if (clip_) {
    for (int64_t i = 0; i < length; ++i) out[i] = std::min(std::max(out[i], 0.f), 1.f);
  }
  float* variance = out + length;
  for (int64_t i = 0; i < length; ++i) variance[i] = variances_[i % variances_.size()];
}

}  // namespace dtrain
