#include "net/layer_type_check.h"

#include "core/caffe_fork_hints.h"
#include "layers/registry.h"

namespace dtrain {

Status CheckLayerTypes(const NetParameter& net, const std::string& source) {
  std::string unknown;
  int count = 0;
  for (const LayerParameter& layer : net.layer()) {
    if (IsSupportedLayerType(layer.type())) continue;
    const std::string hint = CaffeLayerTypeHint(layer.type());
    unknown += "\n  layer '" + layer.name() + "': unknown layer type \"" + layer.type() + "\"" +
               (hint.empty() ? "" : " (" + hint + ")");
    ++count;
  }
  if (count == 0) return Status::Ok();
  std::string supported;
  for (const std::string& t : SupportedLayerTypes())
    supported += (supported.empty() ? "" : ", ") + t;
  return Unsupported((source.empty() ? "" : source + ": ") + std::to_string(count) +
                     " layer(s) of a type dtrain does not " + "have:" + unknown +
                     "\nsupported types: " + supported);
}

}  // namespace dtrain
