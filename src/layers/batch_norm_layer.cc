#include "layers/batch_norm_layer.h"

#include <algorithm>
#include <cmath>

#include "proto/layer_params.pb.h"

namespace dtrain {

Status BatchNormLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const BatchNormParameter& p = param_.batch_norm_param();
  use_global_stats_ = p.has_use_global_stats() ? p.use_global_stats() : phase_ == TEST;
  moving_average_fraction_ = p.moving_average_fraction();
  eps_ = p.eps();
  if (eps_ < 0.f) return Error("eps must not be negative, got " + std::to_string(eps_));
  if (bottom[0]->num_axes() == 0) return Error("bottom must have at least 1 axis");
  channels_ = bottom[0]->num_axes() == 1 ? 1 : bottom[0]->shape(1);

  if (blobs_.empty()) {
    blobs_.push_back(std::make_shared<Tensor>(std::vector<int>{channels_}));
    blobs_.push_back(std::make_shared<Tensor>(std::vector<int>{channels_}));
    blobs_.push_back(std::make_shared<Tensor>(std::vector<int>{1}));
    for (auto& b : blobs_) b->SetData(0.f);
  } else if (blobs_.size() != 3 || blobs_[0]->count() != channels_ ||
             blobs_[1]->count() != channels_ || blobs_[2]->count() != 1) {
    return Error("expected 3 blobs (mean and variance of " + std::to_string(channels_) +
                 " values, scale factor of 1), got " + std::to_string(blobs_.size()) + " blob(s)");
  }
  // The statistics are never trained: no gradient, and lr_mult 0 for the
  // solver, as in Caffe.
  for (int i = 0; i < 3; ++i) {
    if (i < param_.param_size()) {
      if (param_.param(i).lr_mult() != 0.f) {
        return Error("param " + std::to_string(i) +
                     " has a non-zero lr_mult; batch normalization statistics "
                     "are not learnable");
      }
    } else {
      param_.add_param()->set_lr_mult(0.f);
    }
    set_param_propagate_down(i, false);
  }
  return Status::Ok();
}

Status BatchNormLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const int c = bottom[0]->num_axes() == 1 ? 1 : bottom[0]->shape(1);
  if (c != channels_) {
    return Error("bottom must keep " + std::to_string(channels_) + " channels, got " +
                 bottom[0]->ShapeString());
  }
  num_ = bottom[0]->shape(0);
  spatial_ = num_ * channels_ == 0 ? 0 : bottom[0]->count() / (num_ * channels_);
  top[0]->ReshapeLike(*bottom[0]);
  x_norm_.ReshapeLike(*bottom[0]);
  mean_.resize(channels_);
  variance_.resize(channels_);
  stddev_.resize(channels_);
  // Implementation list: oneDNN, then the loops below.
  const onednn::BatchNormProblem problem{num_, channels_, spatial_, eps_, use_global_stats_};
  StatusOr<bool> changed = kernel_.Update(
      engine_, problem, [&] { return onednn::BatchNorm::Create(problem, /*training=*/true); },
      &engine_report_);
  if (!changed.ok()) return Error(changed.status().message());
  return Status::Ok();
}

void BatchNormLayer::ReadGlobalStats() {
  const float factor = blobs_[2]->data()[0];
  const float scale = factor == 0.f ? 0.f : 1.f / factor;
  for (int c = 0; c < channels_; ++c) {
    mean_[c] = blobs_[0]->data()[c] * scale;
    variance_[c] = blobs_[1]->data()[c] * scale;
  }
}

// Running statistics from this batch's mean_ and variance_, stored exactly as Caffe does.
void BatchNormLayer::UpdateRunningStats() {
  const double m = static_cast<double>(num_) * spatial_;  // elements per channel
  const float f = moving_average_fraction_;
  const float bias_correction = m > 1 ? static_cast<float>(m / (m - 1)) : 1.f;
  blobs_[2]->mutable_data()[0] = blobs_[2]->data()[0] * f + 1.f;
  for (int c = 0; c < channels_; ++c) {
    blobs_[0]->mutable_data()[c] = blobs_[0]->data()[c] * f + mean_[c];
    blobs_[1]->mutable_data()[c] = blobs_[1]->data()[c] * f + bias_correction * variance_[c];
  }
}

Status BatchNormLayer::ForwardFast(onednn::BatchNorm& fast, const Tensor& bottom, Tensor& top) {
  if (use_global_stats_) ReadGlobalStats();
  // Backward needs the input; in place, the forward pass overwrites it, so keep a copy.
  if (&bottom == &top) {
    std::copy(bottom.data(), bottom.data() + bottom.count(), x_norm_.mutable_data());
  }
  fast.Forward(bottom.data(), top.mutable_data(), mean_.data(), variance_.data());
  if (!use_global_stats_) UpdateRunningStats();
  return Status::Ok();
}

Status BatchNormLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  if (onednn::BatchNorm* fast = kernel_.fast()) return ForwardFast(*fast, *bottom[0], *top[0]);
  const float* x = bottom[0]->data();
  float* y = top[0]->mutable_data();
  const double m = static_cast<double>(num_) * spatial_;  // elements per channel
  auto at = [&](int n, int c) { return (static_cast<int64_t>(n) * channels_ + c) * spatial_; };

  std::vector<float>& variance = variance_;
  if (use_global_stats_) {
    ReadGlobalStats();
  } else {
    for (int c = 0; c < channels_; ++c) {
      double sum = 0, sum_sq = 0;
      for (int n = 0; n < num_; ++n) {
        for (int64_t s = 0; s < spatial_; ++s) sum += x[at(n, c) + s];
      }
      const double mean = m > 0 ? sum / m : 0;
      for (int n = 0; n < num_; ++n) {
        for (int64_t s = 0; s < spatial_; ++s) {
          const double d = x[at(n, c) + s] - mean;
          sum_sq += d * d;
        }
      }
      mean_[c] = static_cast<float>(mean);
      variance[c] = m > 0 ? static_cast<float>(sum_sq / m) : 0.f;
    }
    UpdateRunningStats();
  }
  float* xn = x_norm_.mutable_data();
  for (int c = 0; c < channels_; ++c) {
    stddev_[c] = std::sqrt(variance[c] + eps_);
    for (int n = 0; n < num_; ++n) {
      for (int64_t s = 0; s < spatial_; ++s) {
        const int64_t k = at(n, c) + s;
        y[k] = (x[k] - mean_[c]) / stddev_[c];
        xn[k] = y[k];
      }
    }
  }
  return Status::Ok();
}

void BatchNormLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                  const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  if (onednn::BatchNorm* fast = kernel_.fast()) {
    const float* src = bottom[0] == top[0] ? x_norm_.data() : bottom[0]->data();
    fast->Backward(src, mean_.data(), variance_.data(), top[0]->diff(), bottom[0]->mutable_diff());
    return;
  }
  const float* dy = top[0]->diff();
  const float* y = x_norm_.data();
  float* dx = bottom[0]->mutable_diff();  // may be dy itself (in place): read before written
  const double m = static_cast<double>(num_) * spatial_;
  auto at = [&](int n, int c) { return (static_cast<int64_t>(n) * channels_ + c) * spatial_; };
  for (int c = 0; c < channels_; ++c) {
    double mean_dy = 0, mean_dy_y = 0;
    if (!use_global_stats_ && m > 0) {
      for (int n = 0; n < num_; ++n) {
        for (int64_t s = 0; s < spatial_; ++s) {
          const int64_t k = at(n, c) + s;
          mean_dy += dy[k];
          mean_dy_y += static_cast<double>(dy[k]) * y[k];
        }
      }
      mean_dy /= m;
      mean_dy_y /= m;
    }
    for (int n = 0; n < num_; ++n) {
      for (int64_t s = 0; s < spatial_; ++s) {
        const int64_t k = at(n, c) + s;
        dx[k] = static_cast<float>((dy[k] - mean_dy - mean_dy_y * y[k]) / stddev_[c]);
      }
    }
  }
}

}  // namespace dtrain
