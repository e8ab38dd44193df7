#include "layers/engine.h"

#include "proto/layer_params.pb.h"

namespace dtrain {
namespace {

// Caffe's per-type `engine` enums: CAFFE asks for Caffe's own (our reference) kernel.
bool AsksForCaffeEngine(const LayerParameter& layer) {
  return (layer.has_convolution_param() &&
          layer.convolution_param().engine() == ConvolutionParameter::CAFFE) ||
         (layer.has_pooling_param() && layer.pooling_param().engine() == PoolingParameter::CAFFE) ||
         (layer.has_lrn_param() && layer.lrn_param().engine() == LRNParameter::CAFFE) ||
         (layer.has_relu_param() && layer.relu_param().engine() == ReLUParameter::CAFFE) ||
         (layer.has_softmax_param() && layer.softmax_param().engine() == SoftmaxParameter::CAFFE);
}

}  // namespace

std::string ResolveEngineName(const LayerParameter& layer, const std::string& net_default,
                              const std::string& forced) {
  if (!forced.empty()) return forced;
  if (!layer.engine().empty()) return layer.engine();
  if (AsksForCaffeEngine(layer)) return "CAFFE";
  return net_default;
}

}  // namespace dtrain
