// Non-maximum suppression: the SSD fork's ApplyNMSFast.
//
// Candidates are the boxes whose score is above score_threshold (a NaN score never is), in
// descending score order (equal scores in index order), the first top_k of them when top_k >= 0.
// Each candidate in turn is kept when its overlap (JaccardOverlap, normalised) with every box
// kept so far is at most the current threshold, which starts at nms_threshold and, with eta < 1,
// is multiplied by eta after each kept box while it is above 0.5. A box whose overlap is NaN is
// not kept. Pure; thread-safe.
//
// Intel Caffe's own rewrite of the candidate list (GetMaxScoreIndex for OpenMP) leaves a (score
// 0, index 0) entry for every box at or below the threshold, which makes box 0 a candidate again
// for each of them; this follows the SSD fork, where only boxes above the threshold are
// candidates.
#pragma once

#include <vector>

#include "detection/box.h"

namespace dtrain::detection {

struct NmsSettings {
  float score_threshold = 0;
  float nms_threshold = 0.3f;
  float eta = 1;
  int top_k = -1;  // < 0: every candidate
};

// The indices of the kept boxes, highest score first. Precondition: scores.size() == boxes.size()
// (checked; a mismatch is a broken invariant of the caller).
std::vector<int> ApplyNms(const std::vector<NormalizedBox>& boxes, const std::vector<float>& scores,
                          const NmsSettings& settings);

}  // namespace dtrain::detection
