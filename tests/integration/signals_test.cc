// Signals during training, as in Caffe: SIGHUP writes a snapshot and training goes on; SIGINT
// writes a snapshot and stops cleanly with exit status 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "testing/files.h"
#include "testing/run_command.h"
#include "testing/trainable_data.h"

namespace dtrain {
namespace {

TEST(Signals, HupSnapshotsAndIntSnapshotsAndStops) {
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 64, 1, 8, 2);
  testing::WriteTextFile(dir.Path("net.prototxt"), R"(
    layer { name: "d" type: "Data" top: "data" top: "label" data_param { source: "lmdb" batch_size: 4 } }
    layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 2 } }
    layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" })");
  // No snapshot_prefix: Caffe's rule names snapshots after the solver file.
  testing::WriteTextFile(dir.Path("solver.prototxt"),
                         "net: 'net.prototxt' base_lr: 0.01 lr_policy: 'fixed' display: 1000 "
                         "max_iter: 100000000");
  const std::string script =
      std::string("'") + DTRAIN_BINARY +
      "' train --solver=solver.prototxt > log 2>&1 & pid=$!; "
      "for i in $(seq 600); do grep -q 'Iteration 0' log 2>/dev/null && break; "
      "kill -0 $pid 2>/dev/null || break; sleep 0.1; done; "
      "kill -HUP $pid; sleep 1; kill -INT $pid; wait $pid; echo exit=$?; cat log";
  auto r = testing::RunShell(script, dir.Path(""));
  EXPECT_NE(r.output.find("exit=0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Snapshot requested by SIGHUP."), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Optimization stopped early."), std::string::npos) << r.output;
  // Two snapshots: one for SIGHUP, one when stopping.
  int models = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.Path(""))) {
    if (std::regex_match(e.path().filename().string(),
                         std::regex(R"(solver_iter_\d+\.caffemodel)"))) {
      ++models;
    }
  }
  EXPECT_EQ(models, 2) << r.output;
}

}  // namespace
}  // namespace dtrain
