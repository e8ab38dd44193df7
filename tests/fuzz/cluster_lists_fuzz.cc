// libFuzzer entry point for the Slurm list and EC2 JSON parsers (cluster_lists_fuzz_target.h).
// Built with clang by scripts/fuzz.sh (cmake -DDTRAIN_FUZZ=ON).
#include <cstddef>
#include <cstdint>

#include "fuzz/cluster_lists_fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dtrain::FuzzClusterLists(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
