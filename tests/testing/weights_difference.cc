#include "testing/weights_difference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/proto_io.h"
#include "proto/net.pb.h"

namespace dtrain::testing {

double RelativeWeightDifference(const std::string& a_path, const std::string& b_path) {
  NetParameter a, b;
  EXPECT_TRUE(ReadBinaryProto(a_path, &a).ok()) << a_path;
  EXPECT_TRUE(ReadBinaryProto(b_path, &b).ok()) << b_path;
  EXPECT_EQ(a.layer_size(), b.layer_size());
  double max_diff = 0, max_ref = 0;
  for (int l = 0; l < std::min(a.layer_size(), b.layer_size()); ++l) {
    EXPECT_EQ(a.layer(l).blobs_size(), b.layer(l).blobs_size()) << a.layer(l).name();
    for (int k = 0; k < std::min(a.layer(l).blobs_size(), b.layer(l).blobs_size()); ++k) {
      const BlobProto &x = a.layer(l).blobs(k), &y = b.layer(l).blobs(k);
      EXPECT_EQ(x.data_size(), y.data_size());
      for (int i = 0; i < std::min(x.data_size(), y.data_size()); ++i) {
        max_diff = std::max(max_diff, std::abs(static_cast<double>(x.data(i)) - y.data(i)));
        max_ref = std::max(max_ref, std::abs(static_cast<double>(y.data(i))));
      }
    }
  }
  return max_ref > 0 ? max_diff / max_ref : max_diff;
}

long long ParameterBytes(const std::string& path) {
  NetParameter net;
  EXPECT_TRUE(ReadBinaryProto(path, &net).ok()) << path;
  long long floats = 0;
  for (const LayerParameter& layer : net.layer()) {
    for (const BlobProto& blob : layer.blobs()) floats += blob.data_size();
  }
  return floats * static_cast<long long>(sizeof(float));
}

}  // namespace dtrain::testing
