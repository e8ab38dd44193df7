// One pixel of a channel block of oneDNN's blocked layouts (nChw16c, nChw8c) as one vector: B
// floats, loaded from and stored to float buffers of any alignment, with the compiler picking the
// widest vector instructions -march allows. For dtrain's own loops over those layouts.
#pragma once

// Without -march=native (DTRAIN_NATIVE=OFF), GCC notes that passing 64-byte vectors by value
// differs between ISAs; the functions taking them are internal to the files that use them.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace dtrain::onednn {

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

}  // namespace dtrain::onednn
