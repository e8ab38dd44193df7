#include "layers/crop_layer.h"

#include <algorithm>
#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status CropLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0]) return Error("cannot run in place");
  const CropParameter& p = param_.crop_param();
  const Tensor& data = *bottom[0];
  const Tensor& reference = *bottom[1];
  const int n = data.num_axes();
  if (p.axis() < -n || p.axis() >= n) {
    return Error("crop_param.axis " + std::to_string(p.axis()) +
                 " is out of range for bottom 0 of shape " + data.ShapeString());
  }
  const int start = data.CanonicalAxisIndex(p.axis());
  if (p.offset_size() > 1 && p.offset_size() != n - start) {
    return Error("crop_param.offset needs one value, or one per cropped axis (" +
                 std::to_string(n - start) + " for axes " + std::to_string(start) + " to " +
                 std::to_string(n - 1) + " of bottom 0 " + data.ShapeString() + "), got " +
                 std::to_string(p.offset_size()));
  }
  if (reference.num_axes() < n) {
    return Error("bottom 1 " + reference.ShapeString() + " has fewer axes than bottom 0 " +
                 data.ShapeString());
  }
  std::vector<int> shape = data.shape();
  offsets_.assign(n, 0);
  for (int i = start; i < n; ++i) {
    const int64_t offset = p.offset_size() == 0   ? 0
                           : p.offset_size() == 1 ? p.offset(0)
                                                  : p.offset(i - start);
    if (offset + reference.shape(i) > data.shape(i)) {
      return Error("crop_param: the crop of axis " + std::to_string(i) +
                   " is out of bounds: size " + std::to_string(reference.shape(i)) + " (bottom 1 " +
                   reference.ShapeString() + ") at offset " + std::to_string(offset) +
                   " does not fit in " + std::to_string(data.shape(i)) + " (bottom 0 " +
                   data.ShapeString() + ")");
    }
    shape[i] = reference.shape(i);
    offsets_[i] = static_cast<int>(offset);
  }
  top[0]->Reshape(shape);
  return Status::Ok();
}

template <typename Copy>
void CropLayer::ForEachRow(const Tensor& bottom, const Tensor& top, Copy copy) const {
  const int n = top.num_axes();
  if (top.count() == 0) return;
  const int64_t rows = top.count(0, n - 1);
  std::vector<int> index(n - 1, 0);  // position of the current row in top's leading axes
  for (int64_t r = 0; r < rows; ++r) {
    int64_t src = 0;
    for (int d = 0; d < n - 1; ++d) src = src * bottom.shape(d) + index[d] + offsets_[d];
    src = src * bottom.shape(n - 1) + offsets_[n - 1];
    copy(src, r * top.shape(n - 1));
    for (int d = n - 2; d >= 0; --d) {  // next row, last axis fastest
      if (++index[d] < top.shape(d)) break;
      index[d] = 0;
    }
  }
}

Status CropLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* x = bottom[0]->data();
  float* y = top[0]->mutable_data();
  const int width = top[0]->shape(-1);
  ForEachRow(*bottom[0], *top[0],
             [&](int64_t src, int64_t dst) { std::copy(x + src, x + src + width, y + dst); });
  return Status::Ok();
}

void CropLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                             const TensorVec& bottom) {
  if (propagate_down[1]) bottom[1]->SetDiff(0.f);
  if (!propagate_down[0]) return;
  bottom[0]->SetDiff(0.f);
  const float* dy = top[0]->diff();
  float* dx = bottom[0]->mutable_diff();
  const int width = top[0]->shape(-1);
  ForEachRow(*bottom[0], *top[0],
             [&](int64_t src, int64_t dst) { std::copy(dy + dst, dy + dst + width, dx + src); });
}

}  // namespace dtrain
