// A command's output never written over one of its inputs: `dtrain export onnx --output=` the
// model or weights file, `dtrain plot --output=` a run's log, `train --metrics=` the solver. The
// same file is found by any path to it (a symbolic or hard link, "./x"); an output that does not
// exist yet is no input. Reads the file system.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace dtrain {

struct NamedPath {
  std::string what;  // "--model", "the run"
  std::string path;
};

// An error naming both when `output` (given as `output_flag`) is one of `inputs`.
Status RefuseOutputOverInput(const std::string& output_flag, const std::string& output,
                             const std::vector<NamedPath>& inputs);

}  // namespace dtrain
