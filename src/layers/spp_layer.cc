#include "layers/spp_layer.h"

#include <algorithm>
#include <cmath>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status SPPLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const SPPParameter& p = param_.spp_param();
  if (p.pyramid_height() == 0) return Error("spp_param.pyramid_height must be at least 1");
  pyramid_height_ = static_cast<int>(p.pyramid_height());
  if (pyramid_height_ > 16) {
    return Error("spp_param.pyramid_height " + std::to_string(pyramid_height_) +
                 " would need more than 2^15 bins per axis");
  }
  return Status::Ok();
}

Status SPPLayer::BuildLevels(Tensor* bottom) {
  levels_.clear();
  const int h = bottom->shape(2), w = bottom->shape(3);
  for (int l = 0; l < pyramid_height_; ++l) {
    const int bins = 1 << l;
    const int kernel_h = static_cast<int>(std::ceil(h / static_cast<double>(bins)));
    const int kernel_w = static_cast<int>(std::ceil(w / static_cast<double>(bins)));
    LayerParameter pooling;
    pooling.set_name(name() + "/level" + std::to_string(l));
    pooling.set_type("Pooling");
    PoolingParameter* pp = pooling.mutable_pooling_param();
    pp->set_pool(static_cast<PoolingParameter::PoolMethod>(param_.spp_param().pool()));
    pp->set_kernel_h(kernel_h);
    pp->set_kernel_w(kernel_w);
    pp->set_stride_h(kernel_h);
    pp->set_stride_w(kernel_w);
    pp->set_pad_h((kernel_h * bins - h + 1) / 2);
    pp->set_pad_w((kernel_w * bins - w + 1) / 2);
    LayerContext context = context_;
    context.seed = DeriveSeed(context_.seed, static_cast<uint64_t>(l));
    Level level;
    level.pool = std::make_unique<PoolingLayer>(pooling, context);
    Status s = level.pool->Setup({bottom}, {&level.top});
    if (!s.ok()) {
      return Error("pyramid level " + std::to_string(l) + " (" + std::to_string(bins) + "x" +
                   std::to_string(bins) + " bins) on bottom " + bottom->ShapeString() + ": " +
                   s.message());
    }
    levels_.push_back(std::move(level));
  }
  built_h_ = h;
  built_w_ = w;
  return Status::Ok();
}

Status SPPLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0]) return Error("cannot run in place");
  const Tensor& in = *bottom[0];
  if (in.num_axes() != 4) {
    return Error("needs a 4-D (N, C, H, W) bottom, got shape " + in.ShapeString());
  }
  if (in.shape(2) != built_h_ || in.shape(3) != built_w_) {
    DT_RETURN_IF_ERROR(BuildLevels(bottom[0]));
  } else {
    for (Level& level : levels_) {
      Status s = level.pool->Reshape(bottom, {&level.top});
      if (!s.ok()) return Error(s.message());
    }
  }
  if (pyramid_height_ == 1) {
    top[0]->Reshape(levels_[0].top.shape());
    return Status::Ok();
  }
  int64_t per_item = 0;
  for (const Level& level : levels_) per_item += level.top.count(1);
  top[0]->Reshape({in.shape(0), static_cast<int>(per_item)});
  return Status::Ok();
}

Status SPPLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const int64_t per_item = top[0]->count(1);
  int64_t offset = 0;
  for (Level& level : levels_) {
    float loss = 0;
    Status s = level.pool->Forward(bottom, {&level.top}, &loss);
    if (!s.ok()) return Error(s.message());
    const int64_t size = level.top.count(1);
    for (int n = 0; n < bottom[0]->shape(0); ++n) {
      std::copy_n(level.top.data() + n * size, size,
                  top[0]->mutable_data() + n * per_item + offset);
    }
    offset += size;
  }
  return Status::Ok();
}

void SPPLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                            const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  const int64_t per_item = top[0]->count(1);
  diff_sum_.assign(static_cast<size_t>(bottom[0]->count()), 0.f);
  int64_t offset = 0;
  for (Level& level : levels_) {
    const int64_t size = level.top.count(1);
    for (int n = 0; n < bottom[0]->shape(0); ++n) {
      std::copy_n(top[0]->diff() + n * per_item + offset, size,
                  level.top.mutable_diff() + n * size);
    }
    offset += size;
    level.pool->Backward({&level.top}, {true}, bottom);  // overwrites the bottom's diff
    const float* diff = bottom[0]->diff();
    for (size_t i = 0; i < diff_sum_.size(); ++i) diff_sum_[i] += diff[i];
  }
  std::copy(diff_sum_.begin(), diff_sum_.end(), bottom[0]->mutable_diff());
}

}  // namespace dtrain
