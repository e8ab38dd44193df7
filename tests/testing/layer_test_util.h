// Helpers shared by the per-layer tests in tests/layers/: build a layer from a prototxt snippet
// through the registry, and move float values into and out of a Tensor.
//
// Every layer test builds its layers with MakeLayer, which asks for the engine named by
// $DTRAIN_TEST_ENGINE; ctest's reference rerun sets it, and engine_check.h fails a rerun test
// whose layers did not run that engine. Every helper reports a problem as a gtest failure
// (EXPECT/ADD_FAILURE) in the calling test rather than returning a Status. MakeLayer returns
// nullptr when the layer cannot be built, after recording the failure with the registry's
// message. The caller owns the returned layer. Tensor values are the tensor's data in its
// row-major (NCHW) order. Not thread-safe (gtest assertions).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "layers/layer.h"

namespace dtrain::testing {

// Parses one `layer { ... }` body written as prototxt (e.g. `name: "r" type: "ReLU"`); a parse
// error is a test failure that quotes protobuf's message.
LayerParameter ParseLayerParameter(const std::string& prototxt);

// Deletes a layer after recording its engine report for the engine check (engine_check.h).
struct RecordAndDeleteLayer {
  void operator()(Layer* layer) const;
};
using LayerPtr = std::unique_ptr<Layer, RecordAndDeleteLayer>;

// Creates the layer through CreateLayer with LayerContext{phase, seed, engine}; the defaults are
// LayerContext's, the engine is $DTRAIN_TEST_ENGINE when set (ctest's second run of the layer
// tests sets REFERENCE). Returns nullptr (after a test failure) for a bad parameter or type.
LayerPtr MakeLayer(const LayerParameter& param, Phase phase = LayerContext{}.phase,
                   uint64_t seed = LayerContext{}.seed);
LayerPtr MakeLayer(const std::string& prototxt, Phase phase = LayerContext{}.phase,
                   uint64_t seed = LayerContext{}.seed);

// Copies `values` into t's data; a count other than t->count() is a test failure and leaves t
// untouched.
void FillValues(Tensor* t, const std::vector<float>& values);

// Fills t's data with start, start + 1, start + 2, ...
void FillIota(Tensor* t, float start);

// t's data as a vector, for EXPECT_EQ against expected values.
std::vector<float> Values(const Tensor& t);

}  // namespace dtrain::testing
