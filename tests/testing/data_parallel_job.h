// The jobs of the data-parallel tests: a small conv net on a generated LMDB (dir/lmdb unless
// `source` names another), with random crops and mirroring. They are drawn per record position,
// so the ranks' shards of an iteration are exactly the single process's batch. Its TEST phase
// (batch 8 from the same LMDB, accuracy and loss) runs when `solver_extra` sets test_iter and
// test_interval; `batch_norm` puts a BatchNorm layer on the input. Files: dir/NAME_net.prototxt
// and dir/NAME_solver.prototxt (snapshot prefix dir/NAME, seed 7, base_lr 0.05, momentum 0.9).
#pragma once

#include <string>

#include "testing/files.h"

namespace dtrain::testing {

void WriteJob(const TempDir& dir, const std::string& name, int batch, int iterations,
              const std::string& source = "", const std::string& solver_extra = "",
              bool batch_norm = false);

// Replaces the first `from` in the solver file of job `name` by `to` (a test failure if absent).
void EditSolver(const TempDir& dir, const std::string& name, const std::string& from,
                const std::string& to);

// Expects the BatchNorm layer "bn" of the jobs' snapshots at `iteration` to hold, in job
// `averaged`, the mean of the statistics (mean, variance) of jobs `a` and `b`, which differ.
void ExpectBatchNormStatisticsAveraged(const TempDir& dir, int iteration, const std::string& a,
                                       const std::string& b, const std::string& averaged);

}  // namespace dtrain::testing
