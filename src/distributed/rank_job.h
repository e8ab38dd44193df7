// RankJob: the job one rank of a data-parallel run trains, resolved in one place from the
// solver file, the rank, the number of ranks and the flags of `dtrain train`:
// - "%#"/"%*" (Intel Caffe's convention) stand for the rank and the number of ranks in the
//   solver's path, its `net` and `snapshot_prefix`, every Data and ImageData layer's `source` and
//   every VideoData layer's `video_file`, so that one prototxt serves every worker with files of
//   its own (e.g. `source: "shard_%#_of_%*"`, `source: "train_%#.txt"` as `dtrain split-list`
//   writes them); a layer whose source names a per-rank file reads all of it instead of a strided
//   share;
// - a solver path with "%#" is a solver per rank (`dtrain launch --per-worker-files`): its train
//   net's data layers read all of their sources;
// - --global-batch: the batch_size of the train net's Data and ImageData layers is the whole
//   job's, and each of N ranks reads batch_size / N of it (Caffe's files give the per-process
//   batch; Intel Caffe made users edit it per node). Test-phase layers keep their batch: test
//   passes are split by iterations instead. Where the ranks cannot share a batch evenly, iter_size
//   changes so that they still read batch_size * iter_size images per iteration (batch_size 60
//   with iter_size 2 on 8 ranks: 5 images each with iter_size 3), and where no iter_size can (64
//   images on 3 ranks), the job is refused or, with UnevenBatch::kScaleLr, each rank's batch is
//   rounded down and base_lr scaled by the share of images kept (`dtrain launch --on-shrink`);
// - --data-server-uri points every Data layer whose source is a data server (tcp://) at another;
// - lr_scaling: LINEAR multiplies base_lr by the ranks; --iterations replaces max_iter,
//   --engine the solver's engine;
// - Caffe's snapshot_prefix rule: none means the solver file's path without its extension; a
//   prefix naming a directory ("dir/") gets the solver file's name appended.
// A net that must be edited is read from its file and inlined (net_param, train_net_param).
// Reads the solver and net files; otherwise pure (no logging, nothing written).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "proto/solver.pb.h"

namespace dtrain {

// What --global-batch does with a batch the ranks cannot share evenly.
enum class UnevenBatch {
  kKeepBatch,  // keep the images per iteration exactly (per-rank batch, iter_size) or refuse
  kScaleLr,    // else round each rank's batch down and scale base_lr by the images kept
};

struct JobRequest {
  std::string solver_path;  // --solver, possibly with %# and %*
  // A phase of a multi-phase file (solver/multi_phase.h), trained instead of reading solver_path.
  std::optional<SolverParameter> solver;
  int rank = 0;
  int world = 1;                      // the number of ranks
  int iterations = -1;                // --iterations; -1: the solver's max_iter
  std::optional<std::string> engine;  // --engine; none: the solver's
  bool global_batch = false;
  UnevenBatch uneven_batch = UnevenBatch::kKeepBatch;
  // --data-server-uri: every Data layer served by a data server (source "tcp://...") asks this
  // one instead (`dtrain launch` moving the server with the master); empty: as the nets say.
  std::string data_server_uri;
};

struct RankJob {
  std::string solver_path;  // with %# and %* expanded
  SolverParameter solver;   // as this rank trains it
  // Data layers (by name) that read a file of their own rather than a share of a common one.
  std::set<std::string> per_rank_sources;
  bool shard_train_net = true;  // false for a solver per rank
  // What was rewritten, a line each for the log ("--global-batch over 2 rank(s): data: 64 -> 32").
  std::vector<std::string> changes;
};

StatusOr<RankJob> ResolveRankJob(const JobRequest& request);
// The resolved job in a few lines for the start of the log (STYLE: the resolved configuration).
std::string DescribeRankJob(const RankJob& job, const JobRequest& request);

// The pieces, for `dtrain launch --per-worker-files`, `dtrain split-list` and the pre-flight:
std::string ExpandRankPattern(const std::string& text, int rank, int size);
// Expands `snapshot_prefix`, `net`, every Data and ImageData source and every VideoData video_file
// of the solver's nets (a `net` file holding a pattern is inlined); the layers whose source changed
// go to `per_rank_layers`.
Status ExpandRankPatterns(SolverParameter* solver, int rank, int size,
                          std::set<std::string>* per_rank_layers);
// Shares out over `ranks` the batch_size of the Data layers that feed training: in a net shared
// by both phases (`net`), those the TRAIN phase keeps and the TEST phase does not; in a dedicated
// `train_net`, all that the TRAIN phase keeps. The images per iteration (batch_size * iter_size)
// stay exactly the same through the per-rank batch and, where that alone cannot, iter_size (the
// nearest that can, larger first); where none can, `uneven` decides (see UnevenBatch; the error
// names the layer). Returns the changes as "name: 64 -> 32", "iter_size 1 -> 2, ...", ...
StatusOr<std::vector<std::string>> SplitGlobalBatch(SolverParameter* solver, int ranks,
                                                    UnevenBatch uneven = UnevenBatch::kKeepBatch);
// Reads the solver's `net` and `train_net` files into net_param and train_net_param.
Status InlineNetFiles(SolverParameter* solver);

}  // namespace dtrain
