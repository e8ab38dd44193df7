// `dtrain launch --per-worker-files`: one solver, net and image list per rank, written from the
// job's solver as templates, as the original multi-node GoogLeNet recipe did (`%#`/`%*` paths do
// the same without files; docs/launch.md).
//
// For rank r of N: DIR/solver_r.prototxt and DIR/net_r.prototxt are the job's solver and train
// net with `%#`/`%*` expanded for r; every ImageData layer whose list has no `%#` reads
// DIR/<layer>_r.txt instead, the r-th of N balanced, shuffled shards of that list (`dtrain
// split-list`'s split, `seed`). The job then runs with --solver=DIR/solver_%#.prototxt, and a
// per-rank solver makes every data layer read all of its own source (train_command.cc).
// Existing files in DIR are replaced.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

// Writes the files for `ranks` ranks into `dir` (created if needed); returns the solver pattern
// "DIR/solver_%#.prototxt".
StatusOr<std::string> WritePerWorkerFiles(const std::string& solver_path, int ranks,
                                          const std::string& dir, uint64_t seed);

// `job` ({"train", "--solver=S", ...}) with its --solver pointed at the files written for
// `ranks` ranks into `dir` (empty: S's folder/per_worker); logs where they are.
StatusOr<std::vector<std::string>> JobWithPerWorkerFiles(const std::vector<std::string>& job,
                                                         int ranks, const std::string& dir,
                                                         uint64_t seed);

}  // namespace dtrain
