# A known-bad code generation, checked on the compiler and flags the build really uses.
#
# GCC 12.2 (Debian 12's) with AVX-512 enabled (-march=native on an AVX-512 processor) builds a
# constant vector whose upper half is zero, as its basic-block (SLP) vectorizer makes from
# straight-line stores such as `std::vector<float> v = {5, 5, 5, 5, 0, 0, 0, 0}`, with a broadcast
# to the whole register: every element becomes 5. Silent garbage anywhere such an initialiser
# is written, so where the check fails the build turns that vectorizer off
# (-fno-tree-slp-vectorize; loops are vectorized by the loop vectorizer, which it leaves on).
# tests/unit/compiler_test.cc runs the same pattern inside the test suite.
include(CheckCXXSourceRuns)

set(CMAKE_REQUIRED_FLAGS "-O2 ${DTRAIN_ARCH_FLAGS}")
check_cxx_source_runs([=[
#include <cstring>
__attribute__((noinline)) void Fill(float* out, double* out_d) {
  const float f[8] = {5, 5, 5, 5, 0, 0, 0, 0};
  const double d[4] = {3, 3, 0, 0};
  std::memcpy(out, f, sizeof f);
  for (int i = 0; i < 4; ++i) out_d[i] = d[i];
}
int main() {
  float f[8];
  double d[4];
  Fill(f, d);
  return f[4] == 0 && f[7] == 0 && d[2] == 0 && d[3] == 0 ? 0 : 1;
}
]=] DTRAIN_CONSTANT_VECTORS_EXACT)
unset(CMAKE_REQUIRED_FLAGS)
if(NOT DTRAIN_CONSTANT_VECTORS_EXACT)
  message(STATUS "This compiler with '${DTRAIN_ARCH_FLAGS}' fills half-zero constant vectors "
                 "wrongly (GCC 12.2 with AVX-512): building with -fno-tree-slp-vectorize")
  add_compile_options(-fno-tree-slp-vectorize)
endif()
