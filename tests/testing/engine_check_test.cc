// The reference rerun's engine check (testing/engine_check.h) fails the tests it should, with
// the messages it should. The suites here are not in the rerun; they set $DTRAIN_TEST_ENGINE
// themselves, and run this binary again for what only a whole gtest run shows.
#include "testing/engine_check.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "layers/registry.h"
#include "proto/net.pb.h"
#include "testing/layer_test_util.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::BuiltLayer;
using testing::EngineCheckFailure;
using testing::MakeLayer;
using testing::ParseLayerParameter;
using testing::TakeBuiltLayers;

const char kRelu[] = R"(name: "relu" type: "ReLU")";
const char kNoKernel[] =
    "rerun with DTRAIN_TEST_ENGINE=REFERENCE, but this test built no layer on that engine ";
const char kAdvice[] =
    ": build layers with testing::MakeLayer, or leave the test out of the rerun "
    "(tests/CMakeLists.txt)";

// Sets $DTRAIN_TEST_ENGINE for a scope and restores what it was.
class ScopedTestEngine {
 public:
  explicit ScopedTestEngine(const char* engine) {
    if (const char* old = std::getenv("DTRAIN_TEST_ENGINE")) old_ = old;
    setenv("DTRAIN_TEST_ENGINE", engine, 1);
  }
  ~ScopedTestEngine() {
    if (old_) {
      setenv("DTRAIN_TEST_ENGINE", old_->c_str(), 1);
    } else {
      unsetenv("DTRAIN_TEST_ENGINE");
    }
  }

 private:
  std::optional<std::string> old_;
};

// What the listener would add to this test if it ended now.
std::string CheckThisTest() {
  const char* engine = std::getenv("DTRAIN_TEST_ENGINE");
  return EngineCheckFailure(engine ? engine : "", TakeBuiltLayers());
}

TEST(EngineCheckTest, PassesWhenEveryLayerWithAKernelChoiceRanTheEngine) {
  const BuiltLayer reference{"conv", "Convolution", "reference (engine REFERENCE requested)"};
  const BuiltLayer no_choice{"up", "Deconvolution", ""};
  EXPECT_EQ(EngineCheckFailure("REFERENCE", {reference, no_choice}), "");
  EXPECT_EQ(EngineCheckFailure("caffe", {reference}), "");
  EXPECT_EQ(EngineCheckFailure("ONEDNN", {{"fc", "InnerProduct", "onednn gemm:jit"}}), "");
  // "" and ANY name no engine, so there is nothing to check.
  EXPECT_EQ(EngineCheckFailure("", {}), "");
  EXPECT_EQ(EngineCheckFailure("ANY", {{"fc", "InnerProduct", "onednn gemm:jit"}}), "");
}

TEST(EngineCheckTest, FailsALayerBuiltOnOnednnDuringTheReferenceRerun) {
  ScopedTestEngine engine("REFERENCE");
  TakeBuiltLayers();
  Tensor x({2, 3}), y, z;
  auto on_reference = MakeLayer(kRelu);
  ASSERT_TRUE(on_reference->Setup({&x}, {&y}).ok());
  // What MakeLayer would record of a layer that ignored $DTRAIN_TEST_ENGINE.
  LayerContext onednn;
  onednn.engine = "ONEDNN";
  auto created = CreateLayer(ParseLayerParameter(kRelu), onednn);
  ASSERT_TRUE(created.ok()) << created.status().message();
  testing::LayerPtr on_onednn(std::move(created).value().release());
  ASSERT_TRUE(on_onednn->Setup({&x}, {&z}).ok());
  const std::string report = on_onednn->engine_report();
  ASSERT_EQ(report.rfind("onednn ", 0), 0u) << report;
  on_reference.reset();
  on_onednn.reset();
  EXPECT_EQ(CheckThisTest(),
            "rerun with DTRAIN_TEST_ENGINE=REFERENCE, but layers of this test ran another "
            "engine:\n  layer 'relu' (ReLU): " +
                report);
}

TEST(EngineCheckTest, FailsATestWhoseLayersChoseNoKernel) {
  ScopedTestEngine engine("REFERENCE");
  TakeBuiltLayers();
  EXPECT_EQ(CheckThisTest(),
            std::string(kNoKernel) + "(testing::MakeLayer built no layer)" + kAdvice);
  // Built but never set up, as a test of the registry or of a parameter error would: the layer's
  // kernel list never ran.
  MakeLayer(kRelu).reset();
  EXPECT_EQ(CheckThisTest(), std::string(kNoKernel) +
                                 "(testing::MakeLayer built 1 layer, none of which chose a "
                                 "kernel)" +
                                 kAdvice);
}

TEST(EngineCheckTest, UnknownEngineIsAFailure) {
  EXPECT_EQ(EngineCheckFailure("GPU", {}),
            "rerun with DTRAIN_TEST_ENGINE=GPU: unknown engine 'GPU' (expected ONEDNN, MKLDNN, "
            "MKLDNN:CPU, MKL2017, REFERENCE, CAFFE or ANY)");
}

// The tests the end-to-end test below runs in a child process; disabled, so that they run only
// there.
TEST(EngineCheckChildTest, DISABLED_BuildsItsLayerWithoutMakeLayer) {
  auto layer = CreateLayer(ParseLayerParameter(kRelu), LayerContext{});
  ASSERT_TRUE(layer.ok());
  Tensor x({2, 3}), y;
  ASSERT_TRUE((*layer)->Setup({&x}, {&y}).ok());
}

class EngineCheckChildFixture : public ::testing::Test {
 protected:
  testing::LayerPtr layer_ = MakeLayer(kRelu);
};

// The fixture's layer is deleted, and recorded, before the listener checks the test.
TEST_F(EngineCheckChildFixture, DISABLED_HoldsItsLayer) {
  Tensor x({2, 3}), y;
  ASSERT_TRUE(layer_->Setup({&x}, {&y}).ok());
}

testing::CommandResult RunChild(const std::string& test) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  return testing::RunShell("DTRAIN_TEST_ENGINE=REFERENCE '" + self +
                           "' --gtest_also_run_disabled_tests --gtest_filter=" + test + " 2>&1");
}

TEST(EngineCheckTest, FailsTheTestInAWholeGtestRun) {
  const auto direct = RunChild("EngineCheckChildTest.DISABLED_BuildsItsLayerWithoutMakeLayer");
  EXPECT_NE(direct.exit_code, 0) << direct.output;
  EXPECT_NE(
      direct.output.find(std::string(kNoKernel) + "(testing::MakeLayer built no layer)" + kAdvice),
      std::string::npos)
      << direct.output;
  EXPECT_NE(direct.output.find("[  FAILED  ] EngineCheckChildTest."), std::string::npos)
      << direct.output;
  const auto fixture = RunChild("EngineCheckChildFixture.DISABLED_HoldsItsLayer");
  EXPECT_EQ(fixture.exit_code, 0) << fixture.output;
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The check runs only where $DTRAIN_TEST_ENGINE is set, so ctest must set it on every rerun test
// (a list-valued ENVIRONMENT given to gtest_discover_tests once lost all but its first entry).
TEST(EngineCheckTest, CtestSetsTheEngineOnEveryRerunTest) {
  const std::filesystem::path dir = std::filesystem::read_symlink("/proc/self/exe").parent_path();
  if (!std::filesystem::exists(dir / "CTestTestfile.cmake") ||
      testing::RunShell("command -v ctest >/dev/null").exit_code != 0) {
    GTEST_SKIP() << "not run from a build tree with ctest on the PATH";
  }
  const auto listed =
      testing::RunShell("ctest --test-dir '" + dir.string() + "' -N -V -R '^reference:'");
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  const int reruns = Count(listed.output, ": reference:");
  EXPECT_GT(reruns, 0) << listed.output;
  EXPECT_EQ(Count(listed.output, " DTRAIN_TEST_ENGINE=REFERENCE\n"), reruns) << listed.output;
}

}  // namespace
}  // namespace dtrain
