#include "kernels/onednn/blocked_layout.h"

#include "kernels/onednn/common.h"
#include "kernels/onednn/memory_layout.h"

namespace dtrain::onednn {

int ChannelBlock() { return BlocksOf16Channels() ? 16 : 8; }

LayoutPtr ChannelBlockedLayout(int64_t batch, int64_t channels, int64_t height, int64_t width,
                               int block) {
  const dnnl::memory::format_tag tag =
      block == 16 ? dnnl::memory::format_tag::nChw16c : dnnl::memory::format_tag::nChw8c;
  return LayoutFor(CpuContext{}, dnnl::memory::desc({batch, channels, height, width},
                                                    dnnl::memory::data_type::f32, tag));
}

}  // namespace dtrain::onednn
