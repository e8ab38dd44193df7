#include "testing/net_agreement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace dtrain::testing {

double RelativeError(const Tensor& got, const Tensor& want, bool diff) {
  const float* g = diff ? got.diff() : got.data();
  const float* w = diff ? want.diff() : want.data();
  double max_diff = 0, max_ref = 0;
  for (int64_t i = 0; i < want.count(); ++i) {
    max_diff = std::max(max_diff, std::abs(static_cast<double>(g[i]) - w[i]));
    max_ref = std::max(max_ref, std::abs(static_cast<double>(w[i])));
  }
  return max_ref > 0 ? max_diff / max_ref : max_diff;
}

void ExpectSameParameters(const Net& got, const Net& want, double tolerance) {
  ASSERT_EQ(got.layers().size(), want.layers().size());
  for (size_t l = 0; l < want.layers().size(); ++l) {
    const auto& want_blobs = want.layers()[l]->blobs();
    const auto& got_blobs = got.layers()[l]->blobs();
    ASSERT_EQ(got_blobs.size(), want_blobs.size());
    for (size_t b = 0; b < want_blobs.size(); ++b) {
      const std::string what = want.layer_names()[l] + " blob " + std::to_string(b);
      EXPECT_LE(RelativeError(*got_blobs[b], *want_blobs[b], false), tolerance) << what << " data";
      EXPECT_LE(RelativeError(*got_blobs[b], *want_blobs[b], true), tolerance)
          << what << " gradient";
    }
  }
}

}  // namespace dtrain::testing
