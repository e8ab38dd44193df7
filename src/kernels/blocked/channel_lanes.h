// One pixel of a channel block of oneDNN's blocked layouts (nChw16c, nChw8c) as one vector: B
// floats, loaded from and stored to float buffers of any alignment, with the compiler picking the
// widest vector instructions -march allows. For dtrain's own loops over those layouts.
#pragma once

// Without -march=native (DTRAIN_NATIVE=OFF), GCC notes that passing 64-byte vectors by value
// differs between ISAs; the functions taking them are internal to the files that use them.
#pragma GCC diagnostic ignored "-Wpsabi"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace dtrain::blocked {

template <int B>
struct Lanes;
template <>
struct Lanes<8> {
  typedef float V __attribute__((vector_size(32), aligned(4), may_alias));
};
template <>
struct Lanes<16> {
  typedef float V __attribute__((vector_size(64), aligned(4), may_alias));
};

template <int B>
using Vec = typename Lanes<B>::V;

template <int B>
inline Vec<B> Load(const float* p) {
  return *reinterpret_cast<const Vec<B>*>(p);
}

template <int B>
inline void StoreTo(float* p, Vec<B> v) {
  *reinterpret_cast<Vec<B>*>(p) = v;
}

// Non-temporal stores (past the caches, no read of the line first) when `stream`: a tensor
// larger than the caches is not read back soon, and the store then costs one pass over memory
// instead of two. Buffers are 16-byte aligned (glibc's malloc), so 4 floats a store. After the
// last, FenceStreamingStores() before another thread reads them.
#if defined(__SSE2__)
// Lanes 4q to 4q + 3 of v, by a shuffle (an extract instruction): building the quarter from v's
// elements one by one made GCC store v to the stack and loop over it.
template <int Q, int B>
inline __m128 Quarter(Vec<B> v) {
  return reinterpret_cast<__m128>(
      __builtin_shufflevector(v, v, 4 * Q, 4 * Q + 1, 4 * Q + 2, 4 * Q + 3));
}
#endif

template <int B>
inline void Store(float* p, Vec<B> v, bool stream) {
  static_assert(B == 8 || B == 16);
#if defined(__SSE2__)
  if (stream) {
    _mm_stream_ps(p, Quarter<0, B>(v));
    _mm_stream_ps(p + 4, Quarter<1, B>(v));
    if constexpr (B == 16) {
      _mm_stream_ps(p + 8, Quarter<2, B>(v));
      _mm_stream_ps(p + 12, Quarter<3, B>(v));
    }
    return;
  }
#endif
  StoreTo<B>(p, v);
}

inline void FenceStreamingStores() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace dtrain::blocked
