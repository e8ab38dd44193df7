// Where a training run's first weights come from, by Caffe's rule, for every front end that trains
// (dtrain train and the Python solvers): a .solverstate to resume (--snapshot) needs no weights
// files; else the --weights files, which replace the solver's own `weights:`; else the solver's
// `weights:` entries in order (each may list comma-separated files, as --weights does); else the
// fillers. Stateless.
#pragma once

#include <string>

#include "proto/solver.pb.h"

namespace dtrain {

struct InitialWeights {
  std::string weights;  // LoadWeights' comma-separated list; empty: resume or fillers
  std::string note;     // a line to log when the flag overrides the file, else empty
};

// `weights_flag` and `snapshot_flag` are the command's (empty when not given).
InitialWeights ChooseInitialWeights(const SolverParameter& solver, const std::string& weights_flag,
                                    const std::string& snapshot_flag);

}  // namespace dtrain
