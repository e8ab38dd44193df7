// libFuzzer entry point for the parsers of the files users hand dtrain
// (file_parsers_fuzz_target.h). Built with clang by scripts/fuzz.sh (cmake -DDTRAIN_FUZZ=ON).
#include <cstddef>
#include <cstdint>

#include "fuzz/file_parsers_fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dtrain::FuzzFileParsers(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
