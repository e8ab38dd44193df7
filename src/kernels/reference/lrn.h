// Reference local response normalisation, Caffe's definition, on NCHW float32 tensors:
//
//   scale = k + alpha / n * sum over the window of src^2,   dst = src * scale^-beta
//
// Across channels the window is local_size channels centred on the channel (n = local_size);
// within a channel it is a local_size x local_size square centred on the pixel
// (n = local_size^2). Windows are zero-padded at the borders: the divisor n never shrinks.
// local_size must be odd. Forward writes dst and the `scale` workspace (same shape as src),
// which backward reads with src and dst; all buffers are the caller's. Stateless.
//
// Caffe's WITHIN_CHANNEL ignores `k` and uses 1; that choice belongs to the caller (the layer).
#pragma once

namespace dtrain::reference {

struct LrnShape {
  int batch = 1, channels = 1, height = 1, width = 1;
  int local_size = 5;
  float alpha = 1.f, beta = 0.75f, k = 1.f;

  bool operator==(const LrnShape& o) const {
    return batch == o.batch && channels == o.channels && height == o.height && width == o.width &&
           local_size == o.local_size && alpha == o.alpha && beta == o.beta && k == o.k;
  }
};

void LrnAcrossChannelsForward(const LrnShape& shape, const float* src, float* dst, float* scale);
// diff_src (overwritten) from diff_dst, given the src, dst and scale of the forward pass.
void LrnAcrossChannelsBackward(const LrnShape& shape, const float* src, const float* dst,
                               const float* scale, const float* diff_dst, float* diff_src);

void LrnWithinChannelForward(const LrnShape& shape, const float* src, float* dst, float* scale);
void LrnWithinChannelBackward(const LrnShape& shape, const float* src, const float* dst,
                              const float* scale, const float* diff_dst, float* diff_src);

}  // namespace dtrain::reference
