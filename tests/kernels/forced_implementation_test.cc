// A test's forced entry of an op's list (kernels/listed_implementations.h): only that entry runs,
// its decline is an error naming it, an unknown family is refused with the list's entries, a
// choice for another engine is left alone, and the list chooses as before once the scope ends.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kernels/listed_implementations.h"
#include "layers/registry.h"
#include "proto/net.pb.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

const char kTrainingBatchNorm[] =
    R"(name: "b" type: "BatchNorm" batch_norm_param { use_global_stats: false })";

// Builds and sets up one layer on `engine` with a bottom of `shape`; `status` gets Setup's.
std::unique_ptr<Layer> Build(const std::vector<int>& shape, const std::string& engine,
                             Status* status) {
  LayerContext context;
  context.phase = TRAIN;
  context.engine = engine;
  auto layer = CreateLayer(testing::ParseLayerParameter(kTrainingBatchNorm), context);
  EXPECT_TRUE(layer.ok());
  Tensor bottom(shape), top;
  *status = (*layer)->Setup({&bottom}, {&top});
  return std::move(layer).value();
}

TEST(ForcedImplementation, RunsTheEntryListedSecondWhereTheFirstWouldTakeIt) {
  Status status;
  const auto by_default = Build({2, 16, 3, 3}, "", &status);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(by_default->engine_report().rfind("onednn blocked nChw", 0), 0u)
      << by_default->engine_report();

  kernels::ScopedForcedImplementation forced("BatchNorm", "onednn");
  const auto second = Build({2, 16, 3, 3}, "", &status);
  ASSERT_TRUE(status.ok()) << status.message();
  const std::string report = second->engine_report();
  EXPECT_EQ(report.rfind("onednn ", 0), 0u) << report;
  EXPECT_EQ(report.find("blocked"), std::string::npos) << report;
  EXPECT_NE(report.find("(onednn forced)"), std::string::npos) << report;
  EXPECT_EQ(forced.accepted(), 1);
  EXPECT_EQ(forced.declined(), 0);
}

TEST(ForcedImplementation, ADeclineIsAnErrorNamingTheEntry) {
  kernels::ScopedForcedImplementation forced("BatchNorm", "blocked");
  Status status;
  Build({2, 4, 3, 3}, "", &status);
  EXPECT_EQ(status.message(),
            "layer 'b' (BatchNorm): implementation blocked of BatchNorm forced, but dtrain's "
            "blocked loops declines: fewer than 8 channels");
  EXPECT_EQ(forced.accepted(), 0);
  EXPECT_EQ(forced.declined(), 1);
  EXPECT_EQ(forced.last_decline(), "fewer than 8 channels");
}

TEST(ForcedImplementation, AnUnknownFamilyIsRefusedWithTheListsEntries) {
  kernels::ScopedForcedImplementation forced("BatchNorm", "cudnn");
  Status status;
  Build({2, 16, 3, 3}, "", &status);
  EXPECT_EQ(status.message(),
            "layer 'b' (BatchNorm): implementation cudnn of BatchNorm forced, but its list holds "
            "blocked, onednn, reference");
}

TEST(ForcedImplementation, LeavesChoicesForAnotherEngineAndEndsWithItsScope) {
  Status status;
  {
    kernels::ScopedForcedImplementation forced("BatchNorm", "blocked");
    const auto reference = Build({2, 16, 3, 3}, "REFERENCE", &status);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(reference->engine_report(), "reference (engine REFERENCE requested)");
    EXPECT_EQ(forced.accepted(), 0);
  }
  const auto after = Build({2, 4, 3, 3}, "", &status);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(after->engine_report().rfind("onednn ", 0), 0u) << after->engine_report();
}

TEST(ForcedImplementation, EveryListRegistersItsEntries) {
  const std::vector<kernels::ListedImplementation> batch_norm =
      kernels::ListedImplementations("BatchNorm");
  ASSERT_EQ(batch_norm.size(), 3u);
  EXPECT_EQ(batch_norm[0].family, "blocked");
  EXPECT_EQ(batch_norm[0].engine, Engine::kOnednn);
  EXPECT_EQ(batch_norm[0].title, "dtrain's blocked loops");
  EXPECT_EQ(batch_norm[1].family, "onednn");
  EXPECT_EQ(batch_norm[2].engine, Engine::kReference);
  EXPECT_TRUE(kernels::ListedImplementations("NoSuchOp").empty());
}

}  // namespace
}  // namespace dtrain
