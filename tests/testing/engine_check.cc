#include "testing/engine_check.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <mutex>
#include <utility>

#include "kernels/kernel_list.h"
#include "layers/engine.h"

namespace dtrain::testing {
namespace {

std::mutex& RecordsMutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<BuiltLayer>& Records() {
  static std::vector<BuiltLayer> records;
  return records;
}

class EngineCheckListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo&) override { TakeBuiltLayers(); }

  // gtest has deleted the fixture by now, so layers it held are recorded too.
  void OnTestEnd(const ::testing::TestInfo& test) override {
    std::vector<BuiltLayer> built = TakeBuiltLayers();
    if (test.result()->Skipped()) return;
    const char* engine = std::getenv("DTRAIN_TEST_ENGINE");
    const std::string failure = EngineCheckFailure(engine ? engine : "", built);
    if (!failure.empty()) ADD_FAILURE() << failure;
  }
};

// gtest_main owns main(), so the listener joins from a static initializer. This file is compiled
// into the test binary itself, not into a library the linker could leave out;
// EngineCheckTest.FailsTheTestInAWholeGtestRun shows the listener at work.
[[maybe_unused]] const bool kListenerRegistered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new EngineCheckListener);
  return true;
}();

}  // namespace

void RecordBuiltLayer(const Layer& layer) {
  std::lock_guard<std::mutex> lock(RecordsMutex());
  Records().push_back({layer.name(), layer.type(), layer.engine_report()});
}

std::vector<BuiltLayer> TakeBuiltLayers() {
  std::lock_guard<std::mutex> lock(RecordsMutex());
  return std::exchange(Records(), {});
}

std::string EngineCheckFailure(const std::string& engine_name,
                               const std::vector<BuiltLayer>& built) {
  const std::string rerun = "rerun with DTRAIN_TEST_ENGINE=" + engine_name;
  StatusOr<Engine> engine = ParseEngine(engine_name);
  if (!engine.ok()) return rerun + ": " + engine.status().message();
  if (*engine == Engine::kAny) return "";
  const std::string prefix = kernels::EngineReportName(*engine);  // how its reports begin
  std::string others;
  int on_engine = 0;
  for (const BuiltLayer& layer : built) {
    if (layer.engine_report.empty()) continue;
    if (layer.engine_report.rfind(prefix, 0) == 0) {
      ++on_engine;
    } else {
      others += "\n  layer '" + layer.name + "' (" + layer.type + "): " + layer.engine_report;
    }
  }
  if (!others.empty()) return rerun + ", but layers of this test ran another engine:" + others;
  if (on_engine > 0) return "";
  const std::string seen = built.empty()
                               ? "testing::MakeLayer built no layer"
                               : "testing::MakeLayer built " + std::to_string(built.size()) +
                                     (built.size() == 1 ? " layer" : " layers") +
                                     ", none of which chose a kernel";
  return rerun + ", but this test built no layer on that engine (" + seen +
         "): build layers with testing::MakeLayer, or leave the test out of the rerun "
         "(tests/CMakeLists.txt)";
}

}  // namespace dtrain::testing
