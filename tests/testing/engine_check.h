// The engine check of ctest's reference rerun: a layer test run with $DTRAIN_TEST_ENGINE set
// fails unless the layers it built ran that engine.
//
// testing::MakeLayer (layer_test_util.h) records each layer it built when the layer is deleted
// (the layer's name, type and engine_report(), which kernels/kernel_list.h sets when the layer's
// kernel list runs). A gtest listener, registered by engine_check.cc for the whole test binary,
// takes the records of each test at its end (gtest deletes the fixture, and with it any layer
// the fixture holds, before that) and adds the failure EngineCheckFailure describes. Layers
// built any other way are not seen. The records are guarded by a mutex; a layer deleted on
// another thread while a test ends may land in the next test's records.
#pragma once

#include <string>
#include <vector>

#include "layers/layer.h"

namespace dtrain::testing {

// What the check needs of one layer a test built.
struct BuiltLayer {
  std::string name;
  std::string type;
  std::string engine_report;  // "" for layers whose kernel list never ran (or that have none)
};

// Adds `layer`, as it is now, to the current test's records.
void RecordBuiltLayer(const Layer& layer);

// Returns the records since the last call (or the program's start) and forgets them.
std::vector<BuiltLayer> TakeBuiltLayers();

// Why a test run with DTRAIN_TEST_ENGINE=`engine` that built `built` did not test that engine;
// "" when it did. Nothing is checked for "" or ANY, which name no engine. The test passes when
// every layer with an engine report ran `engine` and at least one has a report.
std::string EngineCheckFailure(const std::string& engine, const std::vector<BuiltLayer>& built);

}  // namespace dtrain::testing
