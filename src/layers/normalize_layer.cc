#include "layers/normalize_layer.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "core/filler.h"
#include "proto/detection_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status NormalizeLayer::CheckAxes(const Tensor& bottom) const {
  if (bottom.num_axes() < 2 || bottom.num_axes() > 4) {
    return Error("bottom must have 2 to 4 axes (N, C, H, W), got shape " + bottom.ShapeString());
  }
  return Status::Ok();
}

Status NormalizeLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const NormalizeParameter& p = param_.norm_param();
  DT_RETURN_IF_ERROR(CheckAxes(*bottom[0]));
  across_spatial_ = p.across_spatial();
  channel_shared_ = p.channel_shared();
  eps_ = p.eps();
  if (!(eps_ >= 0.f) || std::isinf(eps_)) {
    std::ostringstream value;
    value << eps_;
    return Error("norm_param.eps must be non-negative and finite, got " + value.str());
  }
  channels_ = bottom[0]->shape(1);
  const int64_t want = channel_shared_ ? 1 : channels_;
  if (blobs_.empty()) {
    blobs_.push_back(std::make_shared<Tensor>(channel_shared_ ? std::vector<int>{}
                                                              : std::vector<int>{channels_}));
    FillerParameter filler = p.scale_filler();
    if (!p.has_scale_filler()) {
      filler.set_type("constant");
      filler.set_value(1.f);
    }
    const Status valid = ValidateFiller(filler);
    if (!valid.ok()) return Error("norm_param.scale_filler: " + valid.message());
    DT_RETURN_IF_ERROR(Fill(filler, rng_, blobs_[0].get()));
  } else if (blobs_.size() != 1 || blobs_[0]->count() != want) {
    return Error("expected 1 scale blob of " + std::to_string(want) + " value(s), got " +
                 std::to_string(blobs_.size()) + " blob(s), the first " + blobs_[0]->ShapeString());
  }
  return Status::Ok();
}

Status NormalizeLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& in = *bottom[0];
  DT_RETURN_IF_ERROR(CheckAxes(in));
  if (in.shape(1) != channels_) {
    return Error("bottom must keep " + std::to_string(channels_) + " channels, got shape " +
                 in.ShapeString());
  }
  num_ = in.shape(0);
  spatial_ = in.count(2);
  normalized_.ReshapeLike(in);
  norms_.assign(across_spatial_ ? num_ : num_ * spatial_, 0.f);
  sums_.assign(across_spatial_ ? 0 : spatial_, 0.f);
  top[0]->ReshapeLike(in);
  return Status::Ok();
}

Status NormalizeLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const int64_t dim = channels_ * spatial_;
  const float* x = bottom[0]->data();
  float* xhat = normalized_.mutable_data();
  for (int n = 0; n < num_; ++n) {
    const float* xn = x + n * dim;
    float* xhat_n = xhat + n * dim;
    if (across_spatial_) {
      double squares = 0;
      for (int64_t i = 0; i < dim; ++i) squares += static_cast<double>(xn[i]) * xn[i];
      const float norm = static_cast<float>(std::sqrt(squares + eps_));
      norms_[n] = norm;
      for (int64_t i = 0; i < dim; ++i) xhat_n[i] = xn[i] / norm;
    } else {
      float* norm = norms_.data() + n * spatial_;
      for (int64_t s = 0; s < spatial_; ++s) {
        double squares = 0;
        for (int c = 0; c < channels_; ++c) {
          const double v = xn[c * spatial_ + s];
          squares += v * v;
        }
        norm[s] = static_cast<float>(std::sqrt(squares + eps_));
      }
      for (int c = 0; c < channels_; ++c) {
        for (int64_t s = 0; s < spatial_; ++s) {
          xhat_n[c * spatial_ + s] = xn[c * spatial_ + s] / norm[s];
        }
      }
    }
  }
  // Written after every read: the top may be the bottom (in place).
  float* y = top[0]->mutable_data();
  for (int n = 0; n < num_; ++n) {
    for (int c = 0; c < channels_; ++c) {
      const float scale = Scale(c);
      const int64_t start = n * dim + c * spatial_;
      for (int64_t s = 0; s < spatial_; ++s) y[start + s] = scale * xhat[start + s];
    }
  }
  return Status::Ok();
}

void NormalizeLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                  const TensorVec& bottom) {
  const int64_t dim = channels_ * spatial_;
  const float* dy = top[0]->diff();
  const float* xhat = normalized_.data();
  if (param_propagate_down(0)) {
    float* ds = blobs_[0]->mutable_diff();
    for (int c = 0; c < channels_; ++c) {
      double sum = 0;
      for (int n = 0; n < num_; ++n) {
        const int64_t start = n * dim + c * spatial_;
        for (int64_t s = 0; s < spatial_; ++s) {
          sum += static_cast<double>(xhat[start + s]) * dy[start + s];
        }
      }
      ds[channel_shared_ ? 0 : c] += static_cast<float>(sum);
    }
  }
  if (!propagate_down[0]) return;
  // dx may be dy (in place): each group's sum is taken before its elements are written.
  float* dx = bottom[0]->mutable_diff();
  for (int n = 0; n < num_; ++n) {
    const int64_t item = n * dim;
    if (across_spatial_) {
      double sum = 0;
      for (int c = 0; c < channels_; ++c) {
        const double scale = Scale(c);
        for (int64_t s = 0; s < spatial_; ++s) {
          const int64_t i = item + c * spatial_ + s;
          sum += scale * xhat[i] * dy[i];
        }
      }
      const float inner = static_cast<float>(sum);
      const float norm = norms_[n];
      for (int c = 0; c < channels_; ++c) {
        const float scale = Scale(c);
        for (int64_t s = 0; s < spatial_; ++s) {
          const int64_t i = item + c * spatial_ + s;
          dx[i] = (scale * dy[i] - xhat[i] * inner) / norm;
        }
      }
    } else {
      std::fill(sums_.begin(), sums_.end(), 0.f);
      for (int c = 0; c < channels_; ++c) {
        const float scale = Scale(c);
        for (int64_t s = 0; s < spatial_; ++s) {
          const int64_t i = item + c * spatial_ + s;
          sums_[s] += scale * xhat[i] * dy[i];
        }
      }
      const float* norm = norms_.data() + n * spatial_;
      for (int c = 0; c < channels_; ++c) {
        const float scale = Scale(c);
        for (int64_t s = 0; s < spatial_; ++s) {
          const int64_t i = item + c * spatial_ + s;
          dx[i] = (scale * dy[i] - xhat[i] * sums_[s]) / norm[s];
        }
      }
    }
  }
}

}  // namespace dtrain
