#include "net/read_net.h"

#include "core/logging.h"
#include "core/proto_checksum.h"
#include "core/proto_io.h"
#include "net/upgrade_net.h"

namespace dtrain {

StatusOr<NetParameter> UpgradeNetAsNeeded(const NetParameter& net, const std::string& source) {
  if (!NetUpgradesNeeded(net).any()) return net;
  NetUpgrades applied;
  auto upgraded = UpgradeNet(net, &applied);
  if (!upgraded.ok()) return upgraded.status().WithContext(source);
  DT_LOG(INFO) << source << ": upgraded from " << applied.Describe()
               << " (dtrain upgrade net writes the current form)";
  return upgraded;
}

namespace {

// A file that parses to nothing (empty, or cut off before its first layer) is refused here:
// built, it would train nothing and exit 0, or as weights copy nothing and train from scratch.
bool DefinesNoLayers(const NetParameter& net) {
  return net.layer_size() == 0 && net.layers_size() == 0 && net.input_size() == 0;
}

}  // namespace

StatusOr<NetParameter> ReadNetParameter(const std::string& path) {
  NetParameter net;
  DT_RETURN_IF_ERROR(ReadTextProto(path, &net));
  if (DefinesNoLayers(net)) {
    return InvalidArgument(path + ": the net file defines no layers (is it empty or cut short?)");
  }
  return UpgradeNetAsNeeded(net, path);
}

StatusOr<NetParameter> ReadBinaryNetParameter(const std::string& path) {
  NetParameter net;
  DT_RETURN_IF_ERROR(ReadBinaryProto(path, &net));
  if (DefinesNoLayers(net)) {
    return InvalidArgument(path + ": the weights file holds no layers (is it empty or cut short?)");
  }
  DT_RETURN_IF_ERROR(VerifyChecksum(net, path));
  // An upgraded net is no longer what the checksum was taken of.
  if (NetUpgradesNeeded(net).any()) net.clear_dtrain_checksum();
  return UpgradeNetAsNeeded(net, path);
}

}  // namespace dtrain
