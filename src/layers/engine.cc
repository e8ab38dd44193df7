#include "layers/engine.h"

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

// The engine a per-type enum names: CAFFE is Caffe's own (our reference) kernel, Intel Caffe's
// MKL2017 and MKLDNN are oneDNN; DEFAULT and CUDNN name none. Every per-type enum shares these
// numbers (proto/layer_params.proto), so one mapping serves them all.
template <typename Enum>
std::string EnumEngineName(Enum engine) {
  switch (static_cast<int>(engine)) {
    case 1:
      return "CAFFE";
    case 3:
      return "MKL2017";
    case 4:
      return "MKLDNN";
    default:
      return "";
  }
}

std::string PerTypeEngineName(const LayerParameter& layer) {
  if (layer.has_convolution_param()) return EnumEngineName(layer.convolution_param().engine());
  if (layer.has_pooling_param()) return EnumEngineName(layer.pooling_param().engine());
  if (layer.has_lrn_param()) return EnumEngineName(layer.lrn_param().engine());
  if (layer.has_relu_param()) return EnumEngineName(layer.relu_param().engine());
  if (layer.has_softmax_param()) return EnumEngineName(layer.softmax_param().engine());
  if (layer.has_sigmoid_param()) return EnumEngineName(layer.sigmoid_param().engine());
  if (layer.has_tanh_param()) return EnumEngineName(layer.tanh_param().engine());
  if (layer.has_batch_norm_param()) return EnumEngineName(layer.batch_norm_param().engine());
  if (layer.has_concat_param()) return EnumEngineName(layer.concat_param().engine());
  return "";
}

}  // namespace

std::string ResolveEngineName(const LayerParameter& layer, const std::string& net_default,
                              const std::string& forced) {
  if (!forced.empty()) return forced;
  const std::string per_type = PerTypeEngineName(layer);
  if (!per_type.empty()) return per_type;
  if (!layer.engine().empty()) return layer.engine();
  return net_default;
}

}  // namespace dtrain
