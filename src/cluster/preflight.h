// Pre-flight checks of one host before a launch (`dtrain preflight`, run on every host by
// `dtrain launch`): the dtrain version matches the launching host's, every input path of the
// job is readable here, the chosen network interface exists and is up. Each problem is one line
// of plain text; none means the host is ready. Reads the filesystem and /sys/class/net;
// thread-safe.
#pragma once

#include <string>
#include <vector>

namespace dtrain {

struct PreflightRequest {
  std::string version;           // this binary's version
  std::string expected_version;  // the launching host's; empty: not checked
  std::vector<std::string> paths;
  std::string interface;  // empty: not checked
};

std::vector<std::string> PreflightProblems(const PreflightRequest& request);

}  // namespace dtrain
