#include "net/read_net.h"

#include "core/logging.h"
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

StatusOr<NetParameter> ReadNetParameter(const std::string& path) {
  NetParameter net;
  DT_RETURN_IF_ERROR(ReadTextProto(path, &net));
  return UpgradeNetAsNeeded(net, path);
}

StatusOr<NetParameter> ReadBinaryNetParameter(const std::string& path) {
  NetParameter net;
  DT_RETURN_IF_ERROR(ReadBinaryProto(path, &net));
  return UpgradeNetAsNeeded(net, path);
}

}  // namespace dtrain
