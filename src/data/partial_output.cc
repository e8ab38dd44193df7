#include "data/partial_output.h"

#include <unistd.h>

#include <filesystem>

#include "core/logging.h"
#include "core/stale_files.h"

namespace dtrain {

Status WriteOutputsAtomically(
    const std::vector<std::string>& paths,
    const std::function<Status(const std::vector<std::string>& partials)>& write) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> partials;
  for (const std::string& path : paths) {
    if (fs::exists(path, ec)) {
      return InvalidArgument("output '" + path + "' already exists; refusing to overwrite it");
    }
    const fs::path out(path);
    const std::string hidden = "." + out.filename().string() + ".partial.";
    for (const std::string& stale :
         RemoveStaleTemporaries(out.parent_path().string(), hidden, ".partial.")) {
      DT_LOG(INFO) << "Removed '" << stale << "', left by a conversion that did not finish";
    }
    partials.push_back((out.parent_path() / (hidden + std::to_string(getpid()))).string());
  }
  Status status = write(partials);
  for (size_t i = 0; status.ok() && i < paths.size(); ++i) {
    fs::rename(partials[i], paths[i], ec);
    if (ec) {
      status =
          IoError("cannot rename '" + partials[i] + "' to '" + paths[i] + "': " + ec.message());
    }
  }
  if (!status.ok()) {
    for (const std::string& partial : partials) fs::remove_all(partial, ec);
  }
  return status;
}

}  // namespace dtrain
