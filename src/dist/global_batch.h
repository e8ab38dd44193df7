// --global-batch: the batch_size of the train net's Data and ImageData layers is the whole job's
// batch, and each of N ranks reads batch_size / N of it, so that one solver file trains the same
// model on any number of ranks (Caffe's files give the per-process batch; Intel Caffe made users
// edit it per node). Test-phase layers keep their batch: test passes are split by iterations
// instead.
// Edits the solver in place (a `net`/`train_net` file is read and inlined as net_param).
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "proto/solver.pb.h"

namespace dtrain {

// Divides by `ranks` the batch_size of the Data layers that feed training: in a net shared by
// both phases (`net`), those included only in TRAIN; in a dedicated `train_net`, all that the
// TRAIN phase keeps. A batch that does not divide evenly is an error naming the layer. Returns
// the changed layers as "name: 64 -> 32" for the log.
StatusOr<std::vector<std::string>> SplitGlobalBatch(SolverParameter* solver, int ranks);

}  // namespace dtrain
