// Hostile input: Intel Caffe's multi-phase solver files that are absurd or malformed. Each is
// refused by `dtrain train` with the file, the phase and why; nothing trains or is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "hostile/hostile.h"

namespace dtrain {
namespace {

using testing::RunDtrainWithin;
using testing::TempDir;
using testing::WriteTextFile;

TEST(HostileMultiPhase, AbsurdOrMalformedPhasesAreRefusedNamingWhy) {
  TempDir dir;
  testing::WriteTinyLmdb(dir.Path("lmdb"), 4, 1, 2, 2);
  WriteTextFile(dir.Path("net.prototxt"),
                "layer { name: 'data' type: 'Data' top: 'data' top: 'label'\n"
                "  data_param { source: '" +
                    dir.Path("lmdb") +
                    "' batch_size: 2 backend: LMDB } }\n"
                    "layer { name: 'fc' type: 'InnerProduct' bottom: 'data' top: 'y'\n"
                    "  inner_product_param { num_output: 50 } }\n"
                    "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'y' bottom: 'label' "
                    "top: 'loss' }\n");
  const std::string solver = "solver_params { net: '" + dir.Path("net.prototxt") +
                             "' base_lr: 0.1 lr_policy: 'fixed' max_iter: 1 snapshot_prefix: '" +
                             dir.Path("snap") + "' }";
  const struct {
    std::string file, error;
  } cases[] = {
      // A batch beyond any dimension: refused before anything is allocated.
      {"params_pair { " + solver + " batch_size: 4294967295 }",
       "phase 0: layer 'data' (Data): data_param.batch_size is 4294967295, more than a dimension "
       "may be (2147483647)"},
      // Phases nested in a phase: not Intel's format, named as the unknown field it is.
      {"params_pair { " + solver + " }\nparams_pair { params_pair { } }",
       "unknown field \"params_pair\" in SolverParameter"},
      // A phase whose net is the phase file itself.
      {"params_pair { solver_params { net: '" + dir.Path("phases.prototxt") +
           "' base_lr: 0.1 lr_policy: 'fixed' max_iter: 1 } }",
       "unknown field \"params_pair\" in NetParameter"},
  };
  for (const auto& c : cases) {
    WriteTextFile(dir.Path("phases.prototxt"), c.file);
    EXPECT_REFUSED_WITH(RunDtrainWithin(60, "train --solver=" + dir.Path("phases.prototxt")),
                        c.error);
    EXPECT_FALSE(std::filesystem::exists(dir.Path("snap_phase_0_iter_1.caffemodel")));
  }
}

}  // namespace
}  // namespace dtrain
