// Per-rank paths, Intel Caffe's convention: in a Data layer's `source`, an ImageData layer's list
// file (image_data_param.source), the solver's `net` and `snapshot_prefix`, "%#" stands for the
// rank and "%*" for the number of ranks, so that one prototxt serves every worker of a job with
// its own files (e.g. `source: "shard_%#_of_%*"`, `source: "train_%#.txt"` as written by
// `dtrain split-list`).
// Pure functions; a single process is rank 0 of 1.
#pragma once

#include <set>
#include <string>

#include "core/status.h"
#include "proto/solver.pb.h"

namespace dtrain {

std::string ExpandRankPattern(const std::string& text, int rank, int size);

// Expands the solver's `net` and `snapshot_prefix`, and every Data and ImageData layer's `source`
// of its nets
// (a `net` file holding a pattern is read here and inlined as `net_param`). The names of the
// layers whose source names a per-rank file go to `per_rank_layers`: they read all of it, rather
// than a strided share of a common source.
Status ExpandRankPatterns(SolverParameter* solver, int rank, int size,
                          std::set<std::string>* per_rank_layers);

}  // namespace dtrain
