#include "kernels/engine.h"

#include <algorithm>
#include <cctype>

namespace dtrain {
namespace {

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

std::string Trim(const std::string& s) {
  size_t begin = 0, end = s.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(s[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
  return s.substr(begin, end - begin);
}

}  // namespace

// Intel Caffe's engine strings: NAME, or NAME:SUB[,;]SUB... where only MKLDNN takes sub-engines
// and CPU is the one this machine has (FPGA and DLA were Intel's accelerators).
StatusOr<Engine> ParseEngine(const std::string& name) {
  const std::string upper = Upper(Trim(name));
  const size_t colon = upper.find(':');
  const std::string base = Trim(upper.substr(0, colon));
  if (colon != std::string::npos) {
    if (base != "MKLDNN" && base != "ONEDNN") {
      return InvalidArgument("engine '" + name +
                             "': only MKLDNN takes sub-engines (Intel Caffe's " + "rule), " +
                             (base.empty() ? "and it names no engine" : base + " none"));
    }
    std::string sub;
    int subs = 0;
    for (size_t i = colon + 1; i <= upper.size(); ++i) {
      const char c = i < upper.size() ? upper[i] : ',';
      if (c != ',' && c != ';' && !std::isspace(static_cast<unsigned char>(c))) {
        sub += c;
        continue;
      }
      if (sub.empty()) continue;
      if (sub != "CPU") {
        return InvalidArgument("engine '" + name + "': sub-engine " + sub +
                               " is an accelerator of Intel Caffe's that dtrain does not drive; "
                               "MKLDNN:CPU is dtrain's oneDNN engine");
      }
      ++subs;
      sub.clear();
    }
    if (subs == 0) return InvalidArgument("engine '" + name + "': no sub-engine after ':'");
  }
  if (base.empty() || base == "ANY") return Engine::kAny;
  if (base == "ONEDNN" || base == "MKLDNN" || base == "MKL2017") return Engine::kOnednn;
  if (base == "REFERENCE" || base == "CAFFE") return Engine::kReference;
  if (base == "CUDNN") {
    return InvalidArgument("engine '" + name + "': dtrain has no GPU engine (ONEDNN, MKLDNN, " +
                           "MKLDNN:CPU, MKL2017, REFERENCE, CAFFE or ANY)");
  }
  return InvalidArgument(
      "unknown engine '" + name +
      "' (expected ONEDNN, MKLDNN, MKLDNN:CPU, MKL2017, REFERENCE, CAFFE or ANY)");
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

}  // namespace dtrain
