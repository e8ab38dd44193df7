#include "kernels/engine.h"

#include <algorithm>
#include <cctype>
#include <dnnl.hpp>

namespace dtrain {
namespace {

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

}  // namespace

StatusOr<Engine> ParseEngine(const std::string& name) {
  const std::string upper = Upper(name);
  if (upper.empty() || upper == "ANY") return Engine::kAny;
  if (upper == "ONEDNN" || upper == "MKLDNN" || upper == "MKL2017") return Engine::kOnednn;
  if (upper == "REFERENCE" || upper == "CAFFE") return Engine::kReference;
  return InvalidArgument("unknown engine '" + name +
                         "' (expected ONEDNN, MKLDNN, REFERENCE, CAFFE or ANY)");
}

const char* EngineName(Engine engine) {
  switch (engine) {
    case Engine::kAny:
      return "ANY";
    case Engine::kOnednn:
      return "ONEDNN";
    case Engine::kReference:
      return "REFERENCE";
  }
  return "?";
}

std::string OnednnVersion() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

}  // namespace dtrain
