// The oneDNN library this process runs, for reports (`dtrain preflight`) and the build checks.
// Stateless.
#pragma once

#include <string>

namespace dtrain {

// e.g. "2.6.3" (Debian's, the default build) or "3.2.0" (the optional oneDNN 3 build,
// scripts/install-onednn3.sh).
std::string OnednnVersion();

}  // namespace dtrain
