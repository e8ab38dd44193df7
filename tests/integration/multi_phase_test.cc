// Intel Caffe's multi-phase solver files: `dtrain train --solver=phases.prototxt` trains each
// phase in turn on the first phase's net, the first Data layer taking each phase's batch size,
// each phase starting from the weights the one before ended with, snapshots under
// prefix_phase_<j>; `dtrain check` reads them; resuming one is refused by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/proto_io.h"
#include "data/data_test_util.h"
#include "proto/net.pb.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::RunDtrain;
using testing::WriteTextFile;

class MultiPhase : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::WriteTinyLmdb(dir.Path("lmdb"), 16, 1, 4, 4);
    WriteTextFile(dir.Path("net.prototxt"),
                  "name: 'phased'\n"
                  "layer { name: 'data' type: 'Data' top: 'data' top: 'label'\n"
                  "  transform_param { scale: 0.01 }\n"
                  "  data_param { source: '" +
                      dir.Path("lmdb") +
                      "' batch_size: 4 backend: LMDB } }\n"
                      "layer { name: 'fc' type: 'InnerProduct' bottom: 'data' top: 'y'\n"
                      "  inner_product_param { num_output: 160 weight_filler { type: 'xavier' } "
                      "} }\n"
                      "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'y' bottom: 'label' "
                      "top: 'loss' }\n");
  }
  std::string Solver(const std::string& extra) const {
    return "solver_params { net: '" + dir.Path("net.prototxt") +
           "' lr_policy: 'fixed' display: 1 random_seed: 3 snapshot_prefix: '" + dir.Path("mp") +
           "' " + extra + " }";
  }
  testing::TempDir dir;
};

TEST_F(MultiPhase, PhasesTrainInTurnOnTheFirstNetWithTheirBatchSizesAndHandOnTheWeights) {
  // The last phase names another net and prefix, which Intel Caffe ignores, and a rate of 0, so
  // that it ends with the weights it started from: those the phase before ended with.
  WriteTextFile(dir.Path("phases.prototxt"),
                "params_pair { " + Solver("base_lr: 0.1 max_iter: 2") +
                    " batch_size: 2 }\n"
                    "params_pair { batch_size: 8 }\n"
                    "params_pair { solver_params { net: 'elsewhere.prototxt' base_lr: 0 "
                    "lr_policy: 'fixed' max_iter: 1 snapshot_prefix: 'other' } }\n");
  const auto r = RunDtrain("train --solver=" + dir.Path("phases.prototxt"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* line : {"Phase 0 of 3 of", "Phase 1 of 3 of", "Phase 2 of 3 of",
                           "Top shape: data 2 1 4 4 (32)", "Top shape: data 8 1 4 4 (128)"}) {
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  }
  // Phase 2 keeps phase 1's batch of 8 (Intel Caffe changes the net it hands on).
  EXPECT_EQ(r.output.find("Top shape: data 4 1 4 4"), std::string::npos) << r.output;
  for (const char* file : {"mp_phase_0_iter_2.caffemodel", "mp_phase_1_iter_2.caffemodel",
                           "mp_phase_2_iter_1.caffemodel"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.Path(file))) << file << "\n" << r.output;
  }
  NetParameter phase0, phase1, phase2;
  ASSERT_TRUE(ReadBinaryProto(dir.Path("mp_phase_0_iter_2.caffemodel"), &phase0).ok());
  ASSERT_TRUE(ReadBinaryProto(dir.Path("mp_phase_1_iter_2.caffemodel"), &phase1).ok());
  ASSERT_TRUE(ReadBinaryProto(dir.Path("mp_phase_2_iter_1.caffemodel"), &phase2).ok());
  auto weights = [](const NetParameter& net) {
    for (const LayerParameter& layer : net.layer()) {
      if (layer.name() == "fc") return layer.blobs(0).data();
    }
    return google::protobuf::RepeatedField<float>();
  };
  ASSERT_EQ(weights(phase2).size(), 160 * 16);
  EXPECT_NE(weights(phase1)[0], weights(phase0)[0]);  // phase 1 trained on
  for (int i = 0; i < weights(phase2).size(); ++i) {
    ASSERT_EQ(weights(phase2)[i], weights(phase1)[i]) << i;  // phase 2 started from phase 1
  }
  const auto check = RunDtrain("check --solver=" + dir.Path("phases.prototxt"));
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("phases.prototxt (phase 1), phase TRAIN"), std::string::npos)
      << check.output;
}

TEST_F(MultiPhase, WhatCannotBeTrainedIsRefusedByName) {
  const struct {
    std::string file, error;
  } cases[] = {
      {"params_pair { batch_size: 8 }",
       "a multi-phase file's first params_pair needs solver_params with a `net` file"},
      {"params_pair { " + Solver("base_lr: 0.1 max_iter: 1") + " batch_size: 0 }",
       "params_pair 0: batch_size must be positive"},
      {"params_pair { " + Solver("base_lr: 0.1 max_iter: 1") + " }\nparams_pair { " +
           Solver("base_lr: 0.1 max_iter: -4") + " }",
       "params_pair 1: max_iter must not be negative, got -4"},
  };
  for (const auto& c : cases) {
    WriteTextFile(dir.Path("bad.prototxt"), c.file);
    for (const std::string command : {"train --solver=", "check --solver="}) {
      const auto r = RunDtrain(command + dir.Path("bad.prototxt"));
      EXPECT_EQ(r.exit_code, 1) << r.output;
      EXPECT_NE(r.output.find(c.error), std::string::npos) << r.output;
    }
  }
  WriteTextFile(dir.Path("ok.prototxt"),
                "params_pair { " + Solver("base_lr: 0.1 max_iter: 1") + " }");
  const auto resume = RunDtrain("train --solver=" + dir.Path("ok.prototxt") +
                                " --snapshot=" + dir.Path("mp_phase_0_iter_1.solverstate"));
  EXPECT_EQ(resume.exit_code, 1) << resume.output;
  EXPECT_NE(resume.output.find("is a multi-phase file (Intel Caffe's): train its phases from the "
                               "start"),
            std::string::npos)
      << resume.output;
  EXPECT_FALSE(std::filesystem::exists(dir.Path("mp_phase_0_iter_1.caffemodel")));
}

}  // namespace
}  // namespace dtrain
