#include "layers/roi_pooling_layer.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include "layers/roi_rows.h"
#include "proto/detection_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

// The [start, end) cells of `bins` bins over a region of `size` cells from `origin`, clipped to
// [0, limit), as Caffe's ROI pooling computes them: floor and ceil of bin * size / bins in float.
void RoiBins(int64_t origin, int64_t size, int bins, int64_t limit, std::vector<int64_t>* out) {
  const float bin_size = static_cast<float>(size) / static_cast<float>(bins);
  for (int b = 0; b < bins; ++b) {
    const int64_t start = static_cast<int64_t>(std::floor(static_cast<float>(b) * bin_size));
    const int64_t end = static_cast<int64_t>(std::ceil(static_cast<float>(b + 1) * bin_size));
    (*out)[2 * b] = std::clamp<int64_t>(start + origin, 0, limit);
    (*out)[2 * b + 1] = std::clamp<int64_t>(end + origin, 0, limit);
  }
}

}  // namespace

Status ROIPoolingLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const ROIPoolingParameter& p = param_.roi_pooling_param();
  if (p.pooled_size_size() > 0) {
    return Error(
        "roi_pooling_param.pooled_size (Intel Caffe's 3-D ROI pooling) is not supported; give "
        "pooled_h and pooled_w");
  }
  DT_ASSIGN_OR_RETURN(pooled_h_, Dimension("roi_pooling_param.pooled_h", p.pooled_h()));
  DT_ASSIGN_OR_RETURN(pooled_w_, Dimension("roi_pooling_param.pooled_w", p.pooled_w()));
  spatial_scale_ = p.spatial_scale();
  if (!std::isfinite(spatial_scale_)) {
    return Error("roi_pooling_param.spatial_scale must be finite, got " +
                 RoiValueString(spatial_scale_));
  }
  bin_rows_.resize(2 * static_cast<size_t>(pooled_h_));
  bin_cols_.resize(2 * static_cast<size_t>(pooled_w_));
  return Status::Ok();
}

Status ROIPoolingLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0] || top[0] == bottom[1]) return Error("cannot run in place");
  const Tensor& features = *bottom[0];
  if (features.num_axes() == 5) {
    return Error("5-axis features (Intel Caffe's 3-D ROI pooling) are not supported, got " +
                 features.ShapeString());
  }
  if (features.num_axes() != 4) {
    return Error("the features (bottom 0) must have 4 axes (N, C, H, W), got " +
                 features.ShapeString());
  }
  const Status rows = CheckRoiRowsShape(*bottom[1]);
  if (!rows.ok()) return Error(rows.message());
  const int rois = bottom[1]->shape(0);
  top[0]->Reshape({rois, features.shape(1), pooled_h_, pooled_w_});
  argmax_.resize(static_cast<size_t>(top[0]->count()));
  roi_batch_.resize(static_cast<size_t>(rois));
  corners_.resize(4 * static_cast<size_t>(rois));
  return Status::Ok();
}

StatusOr<int64_t> ROIPoolingLayer::ScaledCorner(const float* row_values, int64_t row, int k) const {
  static const char* const kNames[5] = {"batch index", "x1", "y1", "x2", "y2"};
  // Caffe rounds in float, halves away from zero, and converts to int.
  const float corner = std::round(row_values[k] * spatial_scale_);
  if (!(std::fabs(corner) < 2147483648.f)) {
    return Error("roi row " + std::to_string(row) + ": " + kNames[k] + " " +
                 RoiValueString(row_values[k]) + " times spatial_scale " +
                 RoiValueString(spatial_scale_) + " is " + RoiValueString(corner) +
                 ", beyond the int coordinates Caffe computes with");
  }
  return static_cast<int64_t>(corner);
}

Status ROIPoolingLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& features = *bottom[0];
  const int batch = features.shape(0);
  const int channels = features.shape(1);
  const int64_t height = features.shape(2);
  const int64_t width = features.shape(3);
  const int64_t plane = height * width;
  const int rois = bottom[1]->shape(0);
  const float* roi = bottom[1]->data();
  // Every row is checked before any output is written.
  for (int r = 0; r < rois; ++r) {
    const StatusOr<int> index = RoiBatchIndex(roi + 5 * r, r, batch);
    if (!index.ok()) return Error(index.status().message());
    roi_batch_[r] = index.value();
    for (int k = 0; k < 4; ++k) {
      DT_ASSIGN_OR_RETURN(corners_[4 * r + k], ScaledCorner(roi + 5 * r, r, k + 1));
    }
  }
  const float* x = features.data();
  float* y = top[0]->mutable_data();
  const int64_t bins = static_cast<int64_t>(pooled_h_) * pooled_w_;
  for (int r = 0; r < rois; ++r) {
    const int64_t x1 = corners_[4 * r], y1 = corners_[4 * r + 1];
    const int64_t x2 = corners_[4 * r + 2], y2 = corners_[4 * r + 3];
    RoiBins(y1, std::max<int64_t>(y2 - y1 + 1, 1), pooled_h_, height, &bin_rows_);
    RoiBins(x1, std::max<int64_t>(x2 - x1 + 1, 1), pooled_w_, width, &bin_cols_);
    for (int c = 0; c < channels; ++c) {
      const float* in = x + (static_cast<int64_t>(roi_batch_[r]) * channels + c) * plane;
      const int64_t out = (static_cast<int64_t>(r) * channels + c) * bins;
      for (int ph = 0; ph < pooled_h_; ++ph) {
        for (int pw = 0; pw < pooled_w_; ++pw) {
          const int64_t h0 = bin_rows_[2 * ph], h1 = bin_rows_[2 * ph + 1];
          const int64_t w0 = bin_cols_[2 * pw], w1 = bin_cols_[2 * pw + 1];
          const int64_t i = out + static_cast<int64_t>(ph) * pooled_w_ + pw;
          if (h1 <= h0 || w1 <= w0) {
            y[i] = 0.f;
            argmax_[i] = -1;
            continue;
          }
          float best = -FLT_MAX;
          int64_t where = -1;
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) {
              if (in[h * width + w] > best) {
                best = in[h * width + w];
                where = h * width + w;
              }
            }
          }
          y[i] = best;
          argmax_[i] = where;
        }
      }
    }
  }
  return Status::Ok();
}

void ROIPoolingLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                   const TensorVec& bottom) {
  // The rois' gradient is zero (as in Caffe, whose layers leave it unwritten).
  if (propagate_down[1]) bottom[1]->SetDiff(0.f);
  if (!propagate_down[0]) return;
  const int channels = bottom[0]->shape(1);
  const int64_t plane = static_cast<int64_t>(bottom[0]->shape(2)) * bottom[0]->shape(3);
  const int64_t bins = static_cast<int64_t>(pooled_h_) * pooled_w_;
  const float* dy = top[0]->diff();
  bottom[0]->SetDiff(0.f);
  float* dx = bottom[0]->mutable_diff();
  for (int r = 0; r < top[0]->shape(0); ++r) {
    for (int c = 0; c < channels; ++c) {
      float* in = dx + (static_cast<int64_t>(roi_batch_[r]) * channels + c) * plane;
      const int64_t out = (static_cast<int64_t>(r) * channels + c) * bins;
      for (int64_t b = 0; b < bins; ++b) {
        if (argmax_[out + b] >= 0) in[argmax_[out + b]] += dy[out + b];
      }
    }
  }
}

}  // namespace dtrain
