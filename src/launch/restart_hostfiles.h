// The hostfiles of `dtrain launch`'s restarts on fewer hosts, for mpirun's --hostfile: written
// to the temporary directory (dtrain-launch-PID-hosts-K for restart K) and removed when the
// owner goes, at the launch's end. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "cluster/hostfile.h"
#include "core/status.h"

namespace dtrain {

class RestartHostfiles {
 public:
  RestartHostfiles() = default;
  RestartHostfiles(const RestartHostfiles&) = delete;
  RestartHostfiles& operator=(const RestartHostfiles&) = delete;
  ~RestartHostfiles();

  // Writes `hosts` as restart `restart`'s hostfile; its path.
  StatusOr<std::string> Write(const std::vector<Host>& hosts, int restart);

 private:
  std::vector<std::string> paths_;
};

}  // namespace dtrain
