// Diff planning: in a backward pass most blob diffs live only between the layer that first writes
// them (the blob's last consumer) and the one that last reads them (its producer). Blobs whose
// lifetimes do not overlap can keep their diffs in one buffer, as MXNet's and PyTorch's
// allocators reuse gradient memory; this cuts a deep net's diff memory several times over.
//
// PlanDiffBuffers is pure: given each blob's lifetime as an inclusive range of layer indices
// (or none: the blob keeps its own diff), it assigns buffer numbers so that blobs sharing a
// buffer never overlap, greedily in backward order, preferring the smallest free buffer that is
// big enough.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace dtrain {

struct DiffLifetime {
  int producer = 0;       // lowest layer index that reads the diff (the blob's producer)
  int last_consumer = 0;  // highest layer index that writes it
  int64_t count = 0;      // floats
};

struct DiffPlan {
  std::vector<int> buffer_of_blob;    // -1: the blob keeps its own diff
  std::vector<int64_t> buffer_count;  // floats each buffer must hold
};

DiffPlan PlanDiffBuffers(const std::vector<std::optional<DiffLifetime>>& blobs);

}  // namespace dtrain
