#include "cli/net_loading.h"

#include "core/proto_io.h"

namespace dtrain {

StatusOr<std::unique_ptr<Net>> LoadNetForPhase(const std::string& model_path, Phase phase,
                                               const std::string& weights_path) {
  if (model_path.empty()) return InvalidArgument("--model is required");
  NetParameter param;
  DT_RETURN_IF_ERROR(ReadTextProto(model_path, &param));
  NetState state;
  state.set_phase(phase);
  DT_ASSIGN_OR_RETURN(std::unique_ptr<Net> net, Net::Create(param, state, 1701));
  if (!weights_path.empty()) {
    NetParameter weights;
    DT_RETURN_IF_ERROR(ReadBinaryProto(weights_path, &weights));
    DT_RETURN_IF_ERROR(net->CopyTrainedLayersFrom(weights).WithContext(weights_path));
  }
  return net;
}

}  // namespace dtrain
