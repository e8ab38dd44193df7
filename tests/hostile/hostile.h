// The hostile-input battery's helpers: run dtrain under a time limit and say how it ended,
// record files before a run to show that a refused run changed none of them, and a tiny
// training job to damage.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "data/data_test_util.h"
#include "testing/run_command.h"

namespace dtrain::testing {

// `dtrain <args>` in `dir`, killed after `seconds`: exit_code 1 is a clean refusal; 124 or 137 a
// hang (the time limit); 128 + N a signal N (SIGSEGV 139, SIGABRT 134).
CommandResult RunDtrainWithin(int seconds, const std::string& args, const std::string& dir = "");

// Every regular file under `dir` (recursively), by path relative to it, with its contents.
std::map<std::string, std::string> FilesUnder(const std::string& dir);

// Four 1x6 inputs (Gaussian, drawn once) and labels in 0..2 through one InnerProduct.
inline const char kTinyNet[] =
    "name: 'tiny'\n"
    "layer { name: 'data' type: 'DummyData' top: 'x' top: 'label' dummy_data_param {\n"
    "  shape { dim: 4 dim: 6 } shape { dim: 4 } data_filler { type: 'gaussian' std: 1 }\n"
    "  data_filler { type: 'uniform' min: 0 max: 2.99 } refill: false } }\n"
    "layer { name: 'fc' type: 'InnerProduct' bottom: 'x' top: 'y'\n"
    "  inner_product_param { num_output: 3 weight_filler { type: 'xavier' } } }\n"
    "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'y' bottom: 'label' top: 'loss' }\n";

// A run directory: net.prototxt (`net`) and solver.prototxt (multistep at 2 and 4, snapshots
// every 2 iterations into snap/, `extra` appended).
struct TinyRun {
  explicit TinyRun(const std::string& extra = "", const std::string& net = kTinyNet,
                   const std::string& base_lr = "0.1", const std::string& max_iter = "4") {
    WriteTextFile(dir.Path("net.prototxt"), net);
    WriteTextFile(dir.Path("solver.prototxt"),
                  "net: '" + dir.Path("net.prototxt") + "' base_lr: " + base_lr +
                      " lr_policy: 'multistep' gamma: 0.5 stepvalue: 2 stepvalue: 4 max_iter: " +
                      max_iter + " snapshot: 2 display: 1 snapshot_prefix: '" +
                      dir.Path("snap/tiny") + "' random_seed: 5\n" + extra);
    std::filesystem::create_directories(dir.Path("snap"));
  }
  testing::CommandResult Train(const std::string& flags = "") const {
    return RunDtrainWithin(120, "train --solver=" + dir.Path("solver.prototxt") + " " + flags);
  }
  std::string Snap(const std::string& name) const { return dir.Path("snap/" + name); }
  TempDir dir;
};

}  // namespace dtrain::testing

// A hostile input: dtrain must refuse it (exit status 1, no signal, no hang) saying `text`.
#define EXPECT_REFUSED_WITH(result, text)                                               \
  do {                                                                                  \
    EXPECT_EQ((result).exit_code, 1) << "exit 1 is a refusal; 124/137 a hang, 128+N a " \
                                        "signal\n"                                      \
                                     << (result).output;                                \
    EXPECT_NE((result).output.find(text), std::string::npos) << (result).output;        \
  } while (0)
