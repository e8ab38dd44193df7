#include "layers/box_annotator_ohem_layer.h"

#include <algorithm>
#include <array>
#include <string>

#include "layers/legacy_shape.h"
#include "layers/roi_rows.h"
#include "proto/detection_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

const char* const kBottomNames[4] = {"rois (bottom 0)", "the per-ROI loss (bottom 1)",
                                     "the labels (bottom 2)", "the bbox loss weights (bottom 3)"};

std::string Dims(int n, const std::string& c, int h, int w) {
  return "(" + std::to_string(n) + ", " + c + ", " + std::to_string(h) + ", " + std::to_string(w) +
         ")";
}

}  // namespace

Status BoxAnnotatorOHEMLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const BoxAnnotatorOHEMParameter& p = param_.box_annotator_ohem_param();
  if (!p.has_roi_per_img()) return Error("box_annotator_ohem_param.roi_per_img is required");
  StatusOr<int> roi_per_img = Dimension("box_annotator_ohem_param.roi_per_img", p.roi_per_img());
  if (!roi_per_img.ok()) return roi_per_img.status();
  roi_per_img_ = *roi_per_img;
  ignore_label_ = p.ignore_label();
  return Status::Ok();
}

Status BoxAnnotatorOHEMLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  for (int k = 0; k < 4; ++k) {
    if (bottom[k]->num_axes() > 4) {
      return Error(std::string(kBottomNames[k]) + " has more than 4 axes (Caffe reads num, " +
                   "channels, height and width), got " + bottom[k]->ShapeString());
    }
  }
  const std::array<int, 4> rois = LegacyShape(*bottom[0]);
  if (rois[1] != 5) {
    return Error("rois (bottom 0) must have 5 channels (batch index, x1, y1, x2, y2), got " +
                 bottom[0]->ShapeString());
  }
  for (int k = 1; k < 4; ++k) {
    const std::array<int, 4> dims = LegacyShape(*bottom[k]);
    const bool weights = k == 3;
    if (dims[0] != rois[0] || (!weights && dims[1] != 1) || dims[2] != rois[2] ||
        dims[3] != rois[3]) {
      return Error(std::string(kBottomNames[k]) + " must be " +
                   Dims(rois[0], weights ? "B" : "1", rois[2], rois[3]) +
                   " as Caffe reads it, after the rois (bottom 0), " + bottom[0]->ShapeString() +
                   "; got " + bottom[k]->ShapeString());
    }
  }
  num_ = rois[0];
  spatial_ = static_cast<int64_t>(rois[2]) * rois[3];
  bbox_channels_ = LegacyShape(*bottom[3])[1];
  top[0]->Reshape({rois[0], 1, rois[2], rois[3]});
  top[1]->Reshape({rois[0], bbox_channels_, rois[2], rois[3]});
  return Status::Ok();
}

Status BoxAnnotatorOHEMLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const int64_t regions = num_ * spatial_;
  if (regions == 0) {
    return Error("rois (bottom 0) holds no region, " + bottom[0]->ShapeString() +
                 " (Intel Caffe stops too: it needs an image)");
  }
  const float* rois = bottom[0]->data();
  image_.resize(regions);
  for (int64_t n = 0; n < num_; ++n) {
    for (int64_t s = 0; s < spatial_; ++s) {
      const float index = rois[n * 5 * spatial_ + s];
      // Caffe converts the index to int, truncating toward zero: (-1, 0) is image 0.
      if (!(index > -1.f && index < 2147483648.f)) {
        return Error("rois (bottom 0) region " + std::to_string(n * spatial_ + s) +
                     ": batch index " + RoiValueString(index) +
                     " is no image (it must truncate to an int in [0, 2147483647])");
      }
      image_[n * spatial_ + s] = static_cast<int>(index);
    }
  }
  loss_.assign(bottom[1]->data(), bottom[1]->data() + regions);
  detection::SelectHardRois(loss_, image_, roi_per_img_, &scratch_, &selected_);

  const float* labels = bottom[2]->data();
  const float* weights = bottom[3]->data();
  float* top_labels = top[0]->mutable_data();
  float* top_weights = top[1]->mutable_data();
  std::fill(top_labels, top_labels + regions, static_cast<float>(ignore_label_));
  std::fill(top_weights, top_weights + top[1]->count(), 0.f);
  for (int64_t n = 0; n < num_; ++n) {
    for (int64_t s = 0; s < spatial_; ++s) {
      const int64_t r = n * spatial_ + s;
      if (!selected_[r]) continue;
      top_labels[r] = labels[r];
      for (int64_t j = 0; j < bbox_channels_; ++j) {
        const int64_t i = (n * bbox_channels_ + j) * spatial_ + s;
        top_weights[i] = weights[i];
      }
    }
  }
  return Status::Ok();
}

}  // namespace dtrain
