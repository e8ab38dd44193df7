// Hostile input: nonsense resumed or trained, divergence, and
// weights that match nothing. Each is refused (exit 1, under a time limit) with the exact cause,
// and a refused run leaves the files already written as they were.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "hostile/hostile.h"
#include "proto/net.pb.h"
#include "proto/solver.pb.h"
#include "testing/files.h"

namespace dtrain {
namespace {

using testing::FilesUnder;
using testing::kTinyNet;
using testing::RunDtrainWithin;
using testing::TempDir;
using testing::TinyRun;
using testing::WriteTextFile;

// Rewrites the solverstate at `path` with `edit` applied, as a file without dtrain's checksum
// (Caffe's, or one written by a buggy tool) holds it.
template <typename Edit>
void EditState(const std::string& path, Edit edit) {
  SolverState state;
  ASSERT_TRUE(ReadBinaryProto(path, &state).ok());
  edit(&state);
  state.clear_dtrain_checksum();
  ASSERT_TRUE(WriteBinaryProtoAtomically(path, state).ok());
}

TEST(NonsenseRuns, OutOfRangeSnapshotFieldsAreRefusedOnResume) {
  TinyRun run;
  ASSERT_EQ(run.Train().exit_code, 0);
  const std::string state = run.Snap("tiny_iter_2.solverstate");
  EditState(state, [](SolverState* s) { s->set_current_step(-1); });
  const auto before = FilesUnder(run.dir.Path("snap"));
  EXPECT_REFUSED_WITH(run.Train("--snapshot=" + state),
                      state +
                          ": current_step is -1; this solver has 2 stepvalue entries, so it "
                          "must be in [0, 2] (damaged file, or another solver's?)");
  EditState(state, [](SolverState* s) {
    s->set_current_step(1);
    s->set_iter(INT32_MIN);
  });
  EXPECT_REFUSED_WITH(run.Train("--snapshot=" + state),
                      state + ": iter is -2147483648; a snapshot's iteration cannot be negative");
  auto after = FilesUnder(run.dir.Path("snap"));
  after.erase("tiny_iter_2.solverstate");  // the two edits above
  auto expected = before;
  expected.erase("tiny_iter_2.solverstate");
  EXPECT_EQ(after, expected) << "a refused resume wrote nothing";
}

// Bytes damaged inside a file that still parses: the checksum dtrain writes finds them.
TEST(NonsenseRuns, DamagedSnapshotBytesAreFoundByTheChecksum) {
  TinyRun run;
  ASSERT_EQ(run.Train().exit_code, 0);
  for (const char* name : {"tiny_iter_2.solverstate", "tiny_iter_2.caffemodel"}) {
    const std::string path = run.Snap(name);
    std::string bytes = FilesUnder(run.dir.Path("snap")).at(name);
    // The float values of the last blob sit just before the file's tail: damage 4 of them in
    // place (the file still parses).
    SolverState state;
    NetParameter net;
    ASSERT_TRUE(std::string(name).find("solverstate") != std::string::npos
                    ? state.ParseFromString(bytes)
                    : net.ParseFromString(bytes));
    const std::string original = bytes;
    const size_t at = bytes.size() / 2;
    for (size_t i = at; i < at + 4; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x40);
    testing::WriteFile(path, std::vector<uint8_t>(bytes.begin(), bytes.end()));
    const auto r = run.Train(std::string("--snapshot=") + run.Snap("tiny_iter_2.solverstate"));
    EXPECT_EQ(r.exit_code, 1) << name << "\n" << r.output;
    const bool still_parses = std::string(name).find("solverstate") != std::string::npos
                                  ? SolverState().ParseFromString(bytes)
                                  : NetParameter().ParseFromString(bytes);
    if (still_parses) {
      EXPECT_NE(r.output.find(path + ": its contents do not match the checksum written with "
                                     "them: the file was damaged after it was written"),
                std::string::npos)
          << name << "\n"
          << r.output;
    }
    testing::WriteFile(path, std::vector<uint8_t>(original.begin(), original.end()));
  }
}

TEST(NonsenseRuns, ASolverStateAndACaffemodelOfDifferentRunsAreRefusedAsAPair) {
  TinyRun run, other("", kTinyNet, "0.2");  // the same net, trained to other weights
  ASSERT_EQ(run.Train().exit_code, 0);
  ASSERT_EQ(other.Train().exit_code, 0);
  std::filesystem::copy_file(other.Snap("tiny_iter_2.caffemodel"),
                             run.Snap("tiny_iter_2.caffemodel"),
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_REFUSED_WITH(run.Train("--snapshot=" + run.Snap("tiny_iter_2.solverstate")),
                      run.Snap("tiny_iter_2.solverstate") + " was written with another '" +
                          run.Snap("tiny_iter_2.caffemodel") + "' than the one there now");
}

TEST(NonsenseRuns, ACaffemodelGivenAsTheSnapshotIsNamedAsWeights) {
  TinyRun run;
  ASSERT_EQ(run.Train().exit_code, 0);
  EXPECT_REFUSED_WITH(run.Train("--snapshot=" + run.Snap("tiny_iter_2.caffemodel")),
                      run.Snap("tiny_iter_2.caffemodel") +
                          " holds a net's weights (a .caffemodel), not a solver state: resume "
                          "with the .solverstate written with it (--snapshot), or fine-tune from "
                          "these weights with --weights");
}

TEST(NonsenseRuns, NegativeIterationCountsAndEmptyFilesAreRefused) {
  TinyRun negative("", kTinyNet, "0.1", "-5");
  EXPECT_REFUSED_WITH(negative.Train(), "max_iter must not be negative, got -5");
  TinyRun run;
  EXPECT_REFUSED_WITH(run.Train("--iterations=-5"), "--iterations must not be negative, got -5");

  TinyRun empty_net("", "");
  EXPECT_REFUSED_WITH(empty_net.Train(), empty_net.dir.Path("net.prototxt") +
                                             ": the net file defines no layers (is it empty or "
                                             "cut short?)");
  TempDir dir;
  WriteTextFile(dir.Path("solver.prototxt"), "");
  EXPECT_REFUSED_WITH(RunDtrainWithin(60, "train --solver=" + dir.Path("solver.prototxt")),
                      "the solver names no net: set net (a file), net_param, train_net or "
                      "train_net_param");
}

TEST(NonsenseRuns, ATopProducedByTwoLayersIsRefused) {
  TinyRun run("", std::string(kTinyNet) +
                      "layer { name: 'fc2' type: 'InnerProduct' bottom: 'x' top: 'y'\n"
                      "  inner_product_param { num_output: 3 } }\n");
  EXPECT_REFUSED_WITH(run.Train(),
                      "layer 'fc2' (InnerProduct): top 'y' is produced by an earlier "
                      "layer too (Caffe refuses a top produced by multiple sources)");
}

TEST(NonsenseRuns, WeightsThatMatchNothingAreRefused) {
  TinyRun run;
  WriteTextFile(run.dir.Path("empty.caffemodel"), "");
  EXPECT_REFUSED_WITH(run.Train("--weights=" + run.dir.Path("empty.caffemodel")),
                      run.dir.Path("empty.caffemodel") +
                          ": the weights file holds no layers (is it empty or cut short?)");
  EXPECT_REFUSED_WITH(run.Train("--weights=,,,"),
                      "--weights ',,,' holds an empty file name (the list is comma-separated "
                      ".caffemodel paths)");
  // Another net's weights: the layer names differ.
  std::string renamed = kTinyNet;
  renamed.replace(renamed.find("name: 'fc'"), 10, "name: 'ip'");
  TinyRun other("", renamed);
  ASSERT_EQ(other.Train().exit_code, 0);
  EXPECT_REFUSED_WITH(run.Train("--weights=" + other.Snap("tiny_iter_4.caffemodel")),
                      other.Snap("tiny_iter_4.caffemodel") +
                          ": no layer of this weights file has a namesake with parameters in the "
                          "net, so it would copy nothing (is it another net's file?); its layers "
                          "with parameters: 'ip'");
}

// The loss sits at SoftmaxWithLoss's clamp (finite) while the weights run off: the first update
// takes them past 1e18, and the next display stops the run before any snapshot.
TEST(NonsenseRuns, DivergenceStopsNamingTheIterationAndWritesNoSnapshotOfIt) {
  TinyRun run("", kTinyNet, "1e30");
  const auto r = run.Train();
  EXPECT_REFUSED_WITH(r, "training diverged at iteration 1: layer 'fc' (InnerProduct) parameter ");
  EXPECT_NE(r.output.find("(the learning rate is 1e+30; try a smaller base_lr). No snapshot is "
                          "written of these weights."),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(FilesUnder(run.dir.Path("snap")).empty());
}

TEST(NonsenseRuns, NonFiniteDataIsBlamedOnTheDataNotTheLearningRate) {
  std::string net = kTinyNet;
  net.replace(net.find("data_filler { type: 'gaussian' std: 1 }"),
              std::string("data_filler { type: 'gaussian' std: 1 }").size(),
              "data_filler { type: 'constant' value: inf }");
  TinyRun run("", net);
  EXPECT_REFUSED_WITH(run.Train(),
                      "training diverged at iteration 0: the loss is nan; the first non-finite "
                      "value is in layer 'data' (DummyData) top 'x' (data): the input data hold "
                      "non-finite values (the learning rate is not the cause). No snapshot is "
                      "written of these weights.");
  EXPECT_TRUE(FilesUnder(run.dir.Path("snap")).empty());
}

// A gradient that is infinite while the loss is finite (Power's sqrt at 0) under LAMB: its moments
// give r = -inf / inf = NaN, the blob's weights turn NaN, and the next iteration's loss stops the
// run naming the layer, before any snapshot.
TEST(NonsenseRuns, AnInfiniteGradientUnderLambStopsTheRunNamingTheLayer) {
  const std::string net =
      "layer { name: 'data' type: 'DummyData' top: 'x' top: 't' dummy_data_param {\n"
      "  shape { dim: 4 dim: 6 } shape { dim: 4 dim: 3 } data_filler { type: 'constant' value: 1 }"
      "\n  data_filler { type: 'constant' value: 1 } } }\n"
      "layer { name: 'fc' type: 'InnerProduct' bottom: 'x' top: 'y' inner_product_param {\n"
      "  num_output: 3 weight_filler { type: 'constant' value: 0 } } }\n"
      "layer { name: 'root' type: 'Power' bottom: 'y' top: 'r' power_param { power: 0.5 } }\n"
      "layer { name: 'loss' type: 'EuclideanLoss' bottom: 'r' bottom: 't' top: 'loss' }\n";
  for (const std::string form : {"INTEL", "LAYERWISE"}) {
    TinyRun run("type: 'LAMB' momentum: 0.9 trust_ratio_form: " + form, net);
    const auto r = run.Train();
    EXPECT_REFUSED_WITH(r,
                        "training diverged at iteration 1: the loss is nan; the first non-finite "
                        "value is in layer 'fc' (InnerProduct) parameter 0");
    EXPECT_TRUE(FilesUnder(run.dir.Path("snap")).empty()) << form;
  }
}

}  // namespace
}  // namespace dtrain
