// libFuzzer entry point for `dtrain plot`'s inputs (plot_inputs_fuzz_target.h). Built with clang
// by scripts/fuzz.sh (cmake -DDTRAIN_FUZZ=ON).
#include <cstddef>
#include <cstdint>

#include "fuzz/plot_inputs_fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dtrain::FuzzPlotInputs(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
