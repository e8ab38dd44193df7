#include "layers/pooling_layer.h"

#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

std::string Pair(int h, int w) { return std::to_string(h) + "x" + std::to_string(w); }

}  // namespace

int PoolingLayer::MaxTopBlobs() const {
  return param_.pooling_param().pool() == PoolingParameter::MAX ? 2 : 1;
}

Status PoolingLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const PoolingParameter& p = param_.pooling_param();
  problem_.method = p.pool() == PoolingParameter::MAX   ? kernels::PoolMethod::kMax
                    : p.pool() == PoolingParameter::AVE ? kernels::PoolMethod::kAverage
                                                        : kernels::PoolMethod::kStochastic;
  problem_.training = phase_ == TRAIN;
  global_ = p.global_pooling();
  round_up_ = p.round_mode() == PoolingParameter::CEIL;
  if (p.has_ceil_mode()) {  // the fork spelling
    if (p.has_round_mode() && p.ceil_mode() != round_up_) {
      return Error("ceil_mode: " + std::string(p.ceil_mode() ? "true" : "false") +
                   " contradicts round_mode: " + (round_up_ ? "CEIL" : "FLOOR"));
    }
    round_up_ = p.ceil_mode();
  }
  kernels::Window2d& w = problem_.shape.window;
  if (global_) {
    if (p.has_kernel_size() || p.has_kernel_h() || p.has_kernel_w()) {
      return Error("global_pooling takes the whole image; kernel size cannot be given");
    }
  } else if (p.has_kernel_size()) {
    if (p.has_kernel_h() || p.has_kernel_w()) {
      return Error("give kernel_size or kernel_h/kernel_w, not both");
    }
    w.kernel_h = w.kernel_w = static_cast<int>(p.kernel_size());
  } else {
    if (!p.has_kernel_h() || !p.has_kernel_w()) {
      return Error("kernel_size, or both kernel_h and kernel_w, is required");
    }
    w.kernel_h = static_cast<int>(p.kernel_h());
    w.kernel_w = static_cast<int>(p.kernel_w());
  }
  if (p.has_pad_h() || p.has_pad_w()) {
    if (p.has_pad() || !p.has_pad_h() || !p.has_pad_w()) {
      return Error("give pad, or both pad_h and pad_w");
    }
    w.pad_h = static_cast<int>(p.pad_h());
    w.pad_w = static_cast<int>(p.pad_w());
  } else {
    w.pad_h = w.pad_w = static_cast<int>(p.pad());
  }
  if (p.has_stride_h() || p.has_stride_w()) {
    if (p.has_stride() || !p.has_stride_h() || !p.has_stride_w()) {
      return Error("give stride, or both stride_h and stride_w");
    }
    w.stride_h = static_cast<int>(p.stride_h());
    w.stride_w = static_cast<int>(p.stride_w());
  } else {
    w.stride_h = w.stride_w = static_cast<int>(p.stride());
  }
  if (global_ && (w.pad_h != 0 || w.pad_w != 0 || w.stride_h != 1 || w.stride_w != 1)) {
    return Error("global_pooling needs pad 0 and stride 1, got pad " + Pair(w.pad_h, w.pad_w) +
                 " and stride " + Pair(w.stride_h, w.stride_w));
  }
  if (!global_ && (w.kernel_h <= 0 || w.kernel_w <= 0)) {
    return Error("kernel size must be positive, got " + Pair(w.kernel_h, w.kernel_w));
  }
  if (w.stride_h <= 0 || w.stride_w <= 0) return Error("stride must be positive");
  if (!global_ && (w.pad_h >= w.kernel_h || w.pad_w >= w.kernel_w)) {
    return Error("pad " + Pair(w.pad_h, w.pad_w) + " must be smaller than the kernel " +
                 Pair(w.kernel_h, w.kernel_w));
  }
  return Status::Ok();
}

Status PoolingLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& in = *bottom[0];
  if (in.num_axes() != 4) {
    return Error("needs a 4-D (N, C, H, W) bottom, got shape " + in.ShapeString());
  }
  kernels::PoolingShape& s = problem_.shape;
  kernels::Window2d& w = s.window;
  s.batch = in.shape(0);
  s.channels = in.shape(1);
  s.in_h = in.shape(2);
  s.in_w = in.shape(3);
  if (global_) {
    w.kernel_h = s.in_h;
    w.kernel_w = s.in_w;
  }
  const bool padded = w.pad_h > 0 || w.pad_w > 0;
  s.out_h = kernels::PooledSize(s.in_h, w.kernel_h, w.pad_h, w.stride_h, round_up_, padded);
  s.out_w = kernels::PooledSize(s.in_w, w.kernel_w, w.pad_w, w.stride_w, round_up_, padded);
  // A window larger than the padded input is Caffe's too (OpenPose's deploy nets declare a 1x1
  // input): its formula gives at least one output where the window starts inside, each window
  // clipped to the input. Where it gives none, Caffe's net would hold an empty or negative shape.
  if (s.out_h < 1 || s.out_w < 1) {
    return Error("kernel " + Pair(w.kernel_h, w.kernel_w) + ", stride " +
                 Pair(w.stride_h, w.stride_w) + " and pad " + Pair(w.pad_h, w.pad_w) +
                 " leave no output of bottom shape " + in.ShapeString() +
                 " (Caffe's rounding gives " + Pair(s.out_h, s.out_w) + ")");
  }
  const std::vector<int> top_shape = {s.batch, s.channels, s.out_h, s.out_w};
  for (Tensor* t : top) t->Reshape(top_shape);
  problem_.argmax_top = top.size() > 1;
  return UpdateKernel(kernel_, problem_);
}

Status PoolingLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const bool draws = problem_.method == kernels::PoolMethod::kStochastic && problem_.training;
  if (draws) {
    uniforms_.resize(top[0]->count());
    for (float& u : uniforms_) u = rng_.Uniform(0.f, 1.f);
  }
  const kernels::KernelLayouts layouts = kernel_->layouts();
  kernel_->Forward(bottom[0]->data_in(layouts.src), draws ? uniforms_.data() : nullptr,
                   top[0]->data_to(layouts.dst), top.size() > 1 ? top[1]->mutable_data() : nullptr);
  return Status::Ok();
}

void PoolingLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  const kernels::KernelLayouts layouts = kernel_->layouts();
  kernel_->Backward(bottom[0]->data_in(layouts.src), top[0]->diff_in(layouts.dst),
                    bottom[0]->diff_to(layouts.src));
}

}  // namespace dtrain
