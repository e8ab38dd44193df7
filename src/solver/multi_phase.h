// Intel Caffe's multi-phase solver files (MultiPhaseSolverParameter): `caffe train` reads a
// --solver file as a SolverParameter and, where that fails, as a list of phases. Phase j trains
// with its own solver_params (or the last phase's that had them; the first must), on the first
// phase's `net` file, whose first layer of type "Data" takes the phase's batch_size (kept by the
// phases after it), writing snapshots under the first phase's snapshot_prefix + "_phase_<j>"
// (an empty prefix: the file's path without its extension, dtrain's default),
// and starts from the weights the previous phase ended with (iterations and solver history
// start anew in each phase). Stateless.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "proto/solver.pb.h"

namespace dtrain {

// The phases of the file at `path` when it is a multi-phase file, none when it is a solver (the
// caller reads it as one and reports its errors); an error naming the file where it is a
// multi-phase file whose phases cannot be trained.
StatusOr<std::optional<std::vector<SolverParameter>>> ReadSolverPhases(const std::string& path);

// The phases of `phases` (read from `source`) as solvers that train them, each with the net
// inlined (net_param) and its snapshot prefix set.
StatusOr<std::vector<SolverParameter>> ExpandSolverPhases(const MultiPhaseSolverParameter& phases,
                                                          const std::string& source);

}  // namespace dtrain
