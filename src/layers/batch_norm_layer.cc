#include "layers/batch_norm_layer.h"

#include <algorithm>
#include <string>

#include "core/filler.h"
#include "proto/filler.pb.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

namespace {

const char* const kBlobNames[] = {"mean", "variance", "scale factor", "gamma", "beta"};

}  // namespace

Status BatchNormLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const BatchNormParameter& p = param_.batch_norm_param();
  use_global_stats_ = p.has_use_global_stats() ? p.use_global_stats() : phase_ == TEST;
  moving_average_fraction_ = p.moving_average_fraction();
  eps_ = p.eps();
  if (eps_ < 0.f) return Error("eps must not be negative, got " + std::to_string(eps_));
  if (bottom[0]->num_axes() == 0) return Error("bottom must have at least 1 axis");
  channels_ = bottom[0]->num_axes() == 1 ? 1 : bottom[0]->shape(1);
  absorbed_.Reset(channels_);
  weight_bias_ = p.has_use_weight_bias() && p.use_weight_bias();
  bias_term_ = weight_bias_ && p.bias_term();
  relu_ = p.relu();
  stats_batch_size_ = use_global_stats_ ? 0 : static_cast<int64_t>(p.stats_batch_size());
  zeros_.assign(channels_, 0.f);

  const size_t want = 3 + (weight_bias_ ? 1 : 0) + (bias_term_ ? 1 : 0);
  if (blobs_.empty()) {
    blobs_.push_back(std::make_shared<Tensor>(std::vector<int>{channels_}));
    blobs_.push_back(std::make_shared<Tensor>(std::vector<int>{channels_}));
    blobs_.push_back(std::make_shared<Tensor>(std::vector<int>{1}));
    for (auto& b : blobs_) b->SetData(0.f);
    DT_RETURN_IF_ERROR(SetUpWeightBias());
  } else {
    if (blobs_.size() != want) {
      std::string names;
      for (size_t i = 0; i < want; ++i) names += std::string(i ? ", " : "") + kBlobNames[i];
      return Error("expected " + std::to_string(want) + " blobs (" + names + "), got " +
                   std::to_string(blobs_.size()) + " blob(s)");
    }
    for (size_t i = 0; i < want; ++i) {
      const int count = i == 2 ? 1 : channels_;
      if (blobs_[i]->count() != count) {
        return Error("blob " + std::to_string(i) + " (" + kBlobNames[i] + ") must hold " +
                     std::to_string(count) + " value(s), got " + blobs_[i]->ShapeString());
      }
    }
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

// Blobs 3 and 4 as Intel Caffe's MKL2017 and MKLDNN BatchNorm create them: gamma from filler
// (constant 1 when unset), beta from bias_filler (constant 0 when unset).
Status BatchNormLayer::SetUpWeightBias() {
  const BatchNormParameter& p = param_.batch_norm_param();
  auto add = [&](bool has, const FillerParameter& given, float value) -> Status {
    FillerParameter filler = given;
    if (!has) {
      filler.set_type("constant");
      filler.set_value(value);
    }
    const Status valid = ValidateFiller(filler);
    if (!valid.ok()) return Error(valid.message());
    blobs_.push_back(std::make_shared<Tensor>(std::vector<int>{channels_}));
    const Status filled = Fill(filler, rng_, blobs_.back().get());
    return filled.ok() ? Status::Ok() : Error(filled.message());
  };
  if (weight_bias_) DT_RETURN_IF_ERROR(add(p.has_filler(), p.filler(), 1.f));
  if (bias_term_) DT_RETURN_IF_ERROR(add(p.has_bias_filler(), p.bias_filler(), 0.f));
  return Status::Ok();
}

Status BatchNormLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const int c = bottom[0]->num_axes() == 1 ? 1 : bottom[0]->shape(1);
  if (c != channels_) {
    return Error("bottom must keep " + std::to_string(channels_) + " channels, got " +
                 bottom[0]->ShapeString());
  }
  num_ = bottom[0]->shape(0);
  groups_ = 1;
  if (stats_batch_size_ > 0) {
    // Intel Caffe CHECKs that the sub-batch divides the batch; dtrain says so instead.
    const std::string sub = "stats_batch_size " + std::to_string(stats_batch_size_);
    if (stats_batch_size_ > num_) {
      return Error(sub + " is larger than the batch of " + std::to_string(num_) +
                   " (statistics over sub-batches need sub-batches that divide the batch)");
    }
    if (num_ % stats_batch_size_ != 0) {
      return Error(sub + " does not divide the batch of " + std::to_string(num_) +
                   " (Intel Caffe requires it to)");
    }
    groups_ = num_ / stats_batch_size_;
  }
  spatial_ = num_ * channels_ == 0 ? 0 : bottom[0]->count() / (num_ * channels_);
  const int64_t height = bottom[0]->num_axes() > 2 ? bottom[0]->shape(2) : 1;
  top[0]->ReshapeLike(*bottom[0]);
  mean_.resize(groups_ * channels_);
  variance_.resize(groups_ * channels_);
  return UpdateKernel(
      kernel_, kernels::BatchNormProblem{num_, channels_, spatial_, height, eps_, use_global_stats_,
                                         weight_bias_ || absorbed_.has_scale(),
                                         relu_ || absorbed_.relu(), groups_});
}

// One with a scale of its own takes no Scale; one with a ReLU of its own takes nothing (a ReLU
// after it changes nothing, yet stays a layer of its own).
bool BatchNormLayer::Absorb(Layer& next) {
  if (relu_ || (weight_bias_ && std::string(next.type()) == "Scale")) return false;
  return absorbed_.Absorb(next);
}

const float* BatchNormLayer::scale() const {
  if (weight_bias_) return blobs_[3]->data();
  return absorbed_.has_scale() ? absorbed_.scale() : nullptr;
}

const float* BatchNormLayer::shift() const {
  if (bias_term_) return blobs_[4]->data();
  return weight_bias_ ? zeros_.data() : absorbed_.shift();
}

void BatchNormLayer::ReadGlobalStats() {
  const float factor = blobs_[2]->data()[0];
  const float scale = factor == 0.f ? 0.f : 1.f / factor;
  for (int c = 0; c < channels_; ++c) {
    mean_[c] = blobs_[0]->data()[c] * scale;
    variance_[c] = blobs_[1]->data()[c] * scale;
  }
}

// Running statistics from this batch's mean_ and variance_, stored exactly as Caffe does; with
// sub-batches one update per sub-batch, in order, as Intel Caffe does.
void BatchNormLayer::UpdateRunningStats() {
  const double m = static_cast<double>(num_ / groups_) * spatial_;  // elements per channel
  const float f = moving_average_fraction_;
  const float bias_correction = m > 1 ? static_cast<float>(m / (m - 1)) : 1.f;
  for (int64_t g = 0; g < groups_; ++g) {
    const float* mean = mean_.data() + g * channels_;
    const float* variance = variance_.data() + g * channels_;
    blobs_[2]->mutable_data()[0] = blobs_[2]->data()[0] * f + 1.f;
    for (int c = 0; c < channels_; ++c) {
      blobs_[0]->mutable_data()[c] = blobs_[0]->data()[c] * f + mean[c];
      blobs_[1]->mutable_data()[c] = blobs_[1]->data()[c] * f + bias_correction * variance[c];
    }
  }
}

void BatchNormLayer::TakeBatchStatistics(const float* mean, const float* variance) {
  std::copy(mean, mean + channels_, mean_.begin());
  std::copy(variance, variance + channels_, variance_.begin());
  UpdateRunningStats();
}

Status BatchNormLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  if (use_global_stats_) ReadGlobalStats();
  const float* scale = this->scale();
  const float* shift = this->shift();
  const kernels::KernelLayouts layouts = kernel_->layouts();
  const float* src = bottom[0]->data_in(layouts.src);  // before dst: they may be one buffer
  // Backward needs this src. In place, the result goes to kept_src_, which then becomes the
  // tensor's buffer while the one holding src becomes kept_src_: nothing is copied. Otherwise
  // src is copied only when a later layer overwrites the bottom (Layer::bottom_overwritten_later);
  // else backward reads the bottom itself again.
  const size_t floats = layouts.src ? (layouts.src->bytes() + sizeof(float) - 1) / sizeof(float)
                                    : static_cast<size_t>(bottom[0]->count());
  keeps_src_ = bottom[0] == top[0] || bottom_overwritten_later(0);
  if (keeps_src_) {
    kept_src_.resize(floats);
  } else {
    std::vector<float>().swap(kept_src_);
  }
  if (bottom[0] == top[0]) {
    kernel_->Forward(src, kept_src_.data(), mean_.data(), variance_.data(), scale, shift);
    top[0]->SwapData(layouts.dst, &kept_src_);
  } else {
    if (keeps_src_) std::copy(src, src + floats, kept_src_.begin());
    kernel_->Forward(src, top[0]->data_to(layouts.dst), mean_.data(), variance_.data(), scale,
                     shift);
  }
  if (!use_global_stats_) UpdateRunningStats();
  return Status::Ok();
}

void BatchNormLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                  const TensorVec& bottom) {
  const bool own_diffs =
      weight_bias_ && (param_propagate_down(3) || (bias_term_ && param_propagate_down(4)));
  if (!propagate_down[0] && !absorbed_.wants_diffs() && !own_diffs) return;
  // Every read before the write: bottom and top may be one tensor (in place).
  const kernels::KernelLayouts layouts = kernel_->layouts();
  const float* src = keeps_src_ ? kept_src_.data() : bottom[0]->data_in(layouts.src);
  const float* dst = top[0]->data_in(layouts.dst);
  const float* diff_dst = top[0]->diff_in(layouts.dst);
  float* diff_src;
  if (propagate_down[0]) {
    diff_src = bottom[0]->diff_to(layouts.src);
  } else {  // only the Scale's gradients are wanted
    const size_t bytes = layouts.src ? layouts.src->bytes() : bottom[0]->count() * sizeof(float);
    unused_diff_.resize(bytes / sizeof(float));
    diff_src = unused_diff_.data();
  }
  kernel_->Backward(src, dst, mean_.data(), variance_.data(), scale(), diff_dst, diff_src,
                    absorbed_.diff_scale(), absorbed_.diff_shift());
  if (weight_bias_) {
    AddWeightBiasDiffs();
  } else {
    absorbed_.AddDiffs();
  }
}

// The kernel's gradients of gamma and beta (written where an absorbed Scale's would go), added to
// blobs 3 and 4.
void BatchNormLayer::AddWeightBiasDiffs() {
  auto add = [&](const float* diff, Tensor* blob) {
    float* d = blob->mutable_diff();
    for (int c = 0; c < channels_; ++c) d[c] += diff[c];
  };
  if (param_propagate_down(3)) add(absorbed_.diff_scale(), blobs_[3].get());
  if (bias_term_ && param_propagate_down(4)) add(absorbed_.diff_shift(), blobs_[4].get());
}

}  // namespace dtrain
