#include "layers/psroi_pooling_layer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "layers/roi_rows.h"
#include "proto/detection_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

// The [start, end) cells of `bins` bins of `bin_size` from `origin` (feature cells, float, as
// R-FCN computes them), clipped to [0, limit), written at out[2 b], out[2 b + 1].
void PsBins(float origin, float bin_size, int bins, int64_t limit, int64_t* out) {
  const double top = static_cast<double>(limit);
  for (int b = 0; b < bins; ++b) {
    // Clipped before the conversion, so a region far outside the map converts no huge float.
    const double start = std::floor(static_cast<float>(b) * bin_size + origin);
    const double end = std::ceil(static_cast<float>(b + 1) * bin_size + origin);
    out[2 * b] = static_cast<int64_t>(std::clamp(start, 0.0, top));
    out[2 * b + 1] = static_cast<int64_t>(std::clamp(end, 0.0, top));
  }
}

}  // namespace

Status PSROIPoolingLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const PSROIPoolingParameter& p = param_.psroi_pooling_param();
  DT_ASSIGN_OR_RETURN(output_dim_, Dimension("psroi_pooling_param.output_dim", p.output_dim()));
  DT_ASSIGN_OR_RETURN(group_size_, Dimension("psroi_pooling_param.group_size", p.group_size()));
  spatial_scale_ = p.spatial_scale();
  if (!std::isfinite(spatial_scale_)) {
    return Error("psroi_pooling_param.spatial_scale must be finite, got " +
                 RoiValueString(spatial_scale_));
  }
  return Status::Ok();
}

Status PSROIPoolingLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0] || top[0] == bottom[1]) return Error("cannot run in place");
  const Tensor& maps = *bottom[0];
  if (maps.num_axes() != 4) {
    return Error("the score maps (bottom 0) must have 4 axes (N, C, H, W), got " +
                 maps.ShapeString());
  }
  // In double: the product of two fields up to 2^31 - 1 overflows 64 bits.
  const double want = static_cast<double>(output_dim_) * group_size_ * group_size_;
  if (maps.shape(1) != want) {
    return Error("the score maps (bottom 0) have " + std::to_string(maps.shape(1)) +
                 " channels, but output_dim * group_size^2 is " + std::to_string(output_dim_) +
                 " * " + std::to_string(group_size_) + "^2 = " + RoiValueString(want));
  }
  const Status rows = CheckRoiRowsShape(*bottom[1]);
  if (!rows.ok()) return Error(rows.message());
  const int rois = bottom[1]->shape(0);
  top[0]->Reshape({rois, output_dim_, group_size_, group_size_});
  roi_batch_.resize(static_cast<size_t>(rois));
  bin_rows_.resize(2 * static_cast<size_t>(rois) * group_size_);
  bin_cols_.resize(2 * static_cast<size_t>(rois) * group_size_);
  return Status::Ok();
}

Status PSROIPoolingLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  static const char* const kNames[5] = {"batch index", "x1", "y1", "x2", "y2"};
  const Tensor& maps = *bottom[0];
  const int64_t height = maps.shape(2);
  const int64_t width = maps.shape(3);
  const int rois = bottom[1]->shape(0);
  const float* roi = bottom[1]->data();
  // Every row is checked, and its bins computed, before any output is written.
  for (int r = 0; r < rois; ++r) {
    const float* row = roi + 5 * r;
    const StatusOr<int> index = RoiBatchIndex(row, r, maps.shape(0));
    if (!index.ok()) return Error(index.status().message());
    roi_batch_[r] = index.value();
    // Caffe: the corners rounded to whole pixels, the far ones one pixel further, then scaled.
    const float corner[4] = {std::round(row[1]) * spatial_scale_,
                             std::round(row[2]) * spatial_scale_,
                             static_cast<float>(std::round(row[3]) + 1.) * spatial_scale_,
                             static_cast<float>(std::round(row[4]) + 1.) * spatial_scale_};
    for (int k = 0; k < 4; ++k) {
      if (!std::isfinite(corner[k])) {
        return Error("roi row " + std::to_string(r) + ": " + kNames[k + 1] + " " +
                     RoiValueString(row[k + 1]) + " times spatial_scale " +
                     RoiValueString(spatial_scale_) + " is not finite");
      }
    }
    const float roi_w = std::max(corner[2] - corner[0], 0.1f);
    const float roi_h = std::max(corner[3] - corner[1], 0.1f);
    const float group = static_cast<float>(group_size_);
    PsBins(corner[1], roi_h / group, group_size_, height,
           &bin_rows_[2 * static_cast<size_t>(r) * group_size_]);
    PsBins(corner[0], roi_w / group, group_size_, width,
           &bin_cols_[2 * static_cast<size_t>(r) * group_size_]);
  }
  const float* x = maps.data();
  float* y = top[0]->mutable_data();
  const int64_t plane = height * width;
  int64_t i = 0;  // the top element, in (r, c, gh, gw) order
  for (int r = 0; r < rois; ++r) {
    const int64_t* rows = &bin_rows_[2 * static_cast<size_t>(r) * group_size_];
    const int64_t* cols = &bin_cols_[2 * static_cast<size_t>(r) * group_size_];
    for (int c = 0; c < output_dim_; ++c) {
      for (int gh = 0; gh < group_size_; ++gh) {
        for (int gw = 0; gw < group_size_; ++gw, ++i) {
          const int64_t h0 = rows[2 * gh], h1 = rows[2 * gh + 1];
          const int64_t w0 = cols[2 * gw], w1 = cols[2 * gw + 1];
          if (h1 <= h0 || w1 <= w0) {
            y[i] = 0.f;
            continue;
          }
          const int64_t channel = (static_cast<int64_t>(c) * group_size_ + gh) * group_size_ + gw;
          const float* in =
              x + (static_cast<int64_t>(roi_batch_[r]) * maps.shape(1) + channel) * plane;
          float sum = 0.f;  // in float and row-major order, as Caffe sums
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) sum += in[h * width + w];
          }
          y[i] = sum / static_cast<float>((h1 - h0) * (w1 - w0));
        }
      }
    }
  }
  return Status::Ok();
}

void PSROIPoolingLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                     const TensorVec& bottom) {
  // The rois' gradient is zero (as in Caffe, whose layers leave it unwritten).
  if (propagate_down[1]) bottom[1]->SetDiff(0.f);
  if (!propagate_down[0]) return;
  const int64_t channels = bottom[0]->shape(1);
  const int64_t width = bottom[0]->shape(3);
  const int64_t plane = bottom[0]->shape(2) * width;
  const float* dy = top[0]->diff();
  bottom[0]->SetDiff(0.f);
  float* dx = bottom[0]->mutable_diff();
  int64_t i = 0;
  for (int r = 0; r < top[0]->shape(0); ++r) {
    const int64_t* rows = &bin_rows_[2 * static_cast<size_t>(r) * group_size_];
    const int64_t* cols = &bin_cols_[2 * static_cast<size_t>(r) * group_size_];
    for (int c = 0; c < output_dim_; ++c) {
      for (int gh = 0; gh < group_size_; ++gh) {
        for (int gw = 0; gw < group_size_; ++gw, ++i) {
          const int64_t h0 = rows[2 * gh], h1 = rows[2 * gh + 1];
          const int64_t w0 = cols[2 * gw], w1 = cols[2 * gw + 1];
          if (h1 <= h0 || w1 <= w0) continue;
          const int64_t channel = (static_cast<int64_t>(c) * group_size_ + gh) * group_size_ + gw;
          float* in = dx + (roi_batch_[r] * channels + channel) * plane;
          const float share = dy[i] / static_cast<float>((h1 - h0) * (w1 - w0));
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) in[h * width + w] += share;
          }
        }
      }
    }
  }
}

}  // namespace dtrain
