#include "testing/layer_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "core/proto_io.h"
#include "layers/registry.h"
#include "proto/net.pb.h"
#include "testing/engine_check.h"

namespace dtrain::testing {

LayerParameter ParseLayerParameter(const std::string& prototxt) {
  LayerParameter param;
  Status s = ParseTextProto(prototxt, "layer prototxt", &param);
  EXPECT_TRUE(s.ok()) << s.message() << "\n" << prototxt;
  return param;
}

void RecordAndDeleteLayer::operator()(Layer* layer) const {
  RecordBuiltLayer(*layer);
  delete layer;
}

LayerPtr MakeLayer(const LayerParameter& param, Phase phase, uint64_t seed) {
  LayerContext context;
  context.phase = phase;
  context.seed = seed;
  // ctest runs the tests of layers with a kernel choice twice: as built (oneDNN where it applies)
  // and with DTRAIN_TEST_ENGINE=REFERENCE, so that both kernels pass the same checks.
  if (const char* engine = std::getenv("DTRAIN_TEST_ENGINE")) context.engine = engine;
  auto layer = CreateLayer(param, context);
  if (!layer.ok()) {
    ADD_FAILURE() << "CreateLayer: " << layer.status().message();
    return nullptr;
  }
  return LayerPtr(std::move(layer).value().release());
}

LayerPtr MakeLayer(const std::string& prototxt, Phase phase, uint64_t seed) {
  return MakeLayer(ParseLayerParameter(prototxt), phase, seed);
}

void FillValues(Tensor* t, const std::vector<float>& values) {
  ASSERT_EQ(t->count(), static_cast<int64_t>(values.size()));
  std::copy(values.begin(), values.end(), t->mutable_data());
}

void FillIota(Tensor* t, float start) {
  std::iota(t->mutable_data(), t->mutable_data() + t->count(), start);
}

std::vector<float> Values(const Tensor& t) { return {t.data(), t.data() + t.count()}; }

}  // namespace dtrain::testing
