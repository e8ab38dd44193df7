// oneDNN's channel-blocked 4-D layout (nChw16c, nChw8c) as a tensor layout, for code outside
// kernels/onednn/ that works on it without seeing oneDNN's headers: dtrain's blocked loops
// (kernels/blocked/) name it as their layouts() so that their tensors reach the oneDNN kernels
// around them, and plain readers, exactly as a oneDNN kernel's would (memory_layout.h). Stateless.
#pragma once

#include <cstdint>

#include "core/tensor_layout.h"

namespace dtrain::onednn {

// Channels per block of the layout oneDNN's vectorised kernels prefer on this CPU: 16 where it
// runs AVX-512 code, else 8.
int ChannelBlock();

// The layout nChw<block>c (block 8 or 16) of a tensor of these dims.
LayoutPtr ChannelBlockedLayout(int64_t batch, int64_t channels, int64_t height, int64_t width,
                               int block);

}  // namespace dtrain::onednn
