#include "launch/restart_hostfiles.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace dtrain {

RestartHostfiles::~RestartHostfiles() {
  std::error_code ignored;
  for (const std::string& path : paths_) std::filesystem::remove(path, ignored);
}

StatusOr<std::string> RestartHostfiles::Write(const std::vector<Host>& hosts, int restart) {
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("dtrain-launch-" + std::to_string(getpid()) + "-hosts-" + std::to_string(restart)))
          .string();
  std::ofstream out(path);
  out << FormatHostfile(hosts);
  out.close();
  if (!out) return IoError("cannot write the restart's hostfile " + path);
  paths_.push_back(path);
  return path;
}

}  // namespace dtrain
