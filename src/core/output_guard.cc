#include "core/output_guard.h"

#include <filesystem>
#include <system_error>

namespace dtrain {

Status RefuseOutputOverInput(const std::string& output_flag, const std::string& output,
                             const std::vector<NamedPath>& inputs) {
  for (const NamedPath& input : inputs) {
    if (input.path.empty()) continue;
    std::error_code error;
    if (std::filesystem::equivalent(output, input.path, error) && !error) {
      return InvalidArgument(output_flag + "=" + output + " is " + input.what + " (" + input.path +
                             "): dtrain never writes its output over an input; give another path");
    }
  }
  return Status::Ok();
}

}  // namespace dtrain
