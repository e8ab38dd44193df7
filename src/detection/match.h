// Matching of predicted (or prior) boxes to ground-truth boxes: the SSD fork's MatchBBox.
//
// First bipartite: repeatedly the (prediction, ground truth) pair of largest overlap among the
// unmatched predictions and the ground truths not yet taken is matched, until no pair with an
// overlap above 1e-6 is left; the first pair in (prediction, ground truth) order wins a tie. Then,
// for PER_PREDICTION, every prediction still unmatched takes the ground truth it overlaps most if
// that overlap is at least overlap_threshold (ground truths may be taken again). Pure; thread-safe.
#pragma once

#include <vector>

#include "detection/box.h"

namespace dtrain::detection {

// MultiBoxLossParameter.MatchType's values.
enum class MatchType { kBipartite = 0, kPerPrediction = 1 };

struct Matches {
  // Per prediction: the index into the ground truth of its match; -1 unmatched; -2 ignored (a
  // box crossing the image's boundary, with ignore_cross_boundary).
  std::vector<int> indices;
  // Per prediction: the overlap of its match, or, unmatched, the largest overlap it has with any
  // candidate ground truth (0 when none above 1e-6 or ignored).
  std::vector<float> overlaps;
};

// Matches `predictions` to the ground truths of class `label` (every ground truth when label is
// -1; a ground truth's class is its NormalizedBox::label). Overlaps are JaccardOverlap
// (normalised). A prediction with a NaN coordinate matches nothing.
Matches MatchBoxes(const std::vector<NormalizedBox>& ground_truth,
                   const std::vector<NormalizedBox>& predictions, int label, MatchType type,
                   float overlap_threshold, bool ignore_cross_boundary);

// What MatchBoxes works in; reused from call to call, so that matching every image of every
// iteration (MultiBoxLoss) allocates only while the largest image so far grows.
struct MatchScratch {
  struct Pair {
    int prediction, candidate;  // candidate: index into `candidates`
    float overlap;
  };
  std::vector<int> candidates;  // indices into the ground truth of the wanted class
  std::vector<Pair> pairs;      // overlaps above 1e-6, by prediction, then candidate
  std::vector<char> taken;      // per candidate: matched by the bipartite pass
};

// As above, into *out (its vectors reused).
void MatchBoxes(const std::vector<NormalizedBox>& ground_truth,
                const std::vector<NormalizedBox>& predictions, int label, MatchType type,
                float overlap_threshold, bool ignore_cross_boundary, MatchScratch* scratch,
                Matches* out);

}  // namespace dtrain::detection
