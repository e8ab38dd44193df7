// Photo-like synthetic pixels for the data-path benchmarks: per-channel gradients plus uniform
// noise, 8-bit BGR, HWC. JPEG (quality 90, 4:2:0) compresses them to about the size of a real
// photo of that size (~40 KB at 256 x 256), where pure noise would not compress and a flat colour
// would shrink to a few hundred bytes; decode cost follows the size.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.h"

namespace dtrain::bench {

std::vector<uint8_t> SyntheticPhoto(int height, int width, Rng& rng);

}  // namespace dtrain::bench
