#include "kernels/onednn/version.h"

#include <dnnl.hpp>

namespace dtrain {

std::string OnednnVersion() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

}  // namespace dtrain
