// Hard-example mining of SSD's MultiBoxLoss (the fork's MineHardExamples), one image at a time,
// and the plain non-maximum suppression it runs on the candidates (the fork's ApplyNMS, which
// differs from ApplyNms in nms.h).
//
// Mining needs share_location (one location class). Given each prior's loss (the confidence loss
// towards its label, plus for HARD_EXAMPLE the localisation loss of a matched prior):
//   MAX_NEGATIVE  candidates are the unmatched priors (-1, not -2) whose overlap is below
//                 neg_overlap; it picks floor(positives * neg_pos_ratio) of them.
//   HARD_EXAMPLE  every prior is a candidate; it picks sample_size of them; matched priors not
//                 picked become unmatched (-1).
// Picked candidates that are unmatched become the image's negatives. Picking takes the highest
// losses; with nms (nms_param with nms_threshold > 0) it runs SuppressByLoss over the candidates'
// boxes (priors, or the decoded predictions unless use_prior_for_nms) first and takes the first
// of the boxes it keeps. An image without ground truth is left alone (no negatives). A NaN loss
// ranks above every number; equal losses rank by prior. Pure; thread-safe.
#pragma once

#include <utility>
#include <vector>

#include "detection/box.h"
#include "detection/multibox_targets.h"

namespace dtrain::detection {

// What the functions below work in, reused between calls.
struct MiningScratch {
  std::vector<std::pair<float, int>> candidates;  // (loss, prior)
  std::vector<NormalizedBox> boxes;               // the candidates' boxes, for nms
  std::vector<float> scores;                      // the candidates' losses, for nms
  std::vector<int> order;
  std::vector<int> kept;
  std::vector<char> picked;  // per prior
};

// The fork's ApplyNMS: boxes by descending score (NaN first, then stable), the first top_k when
// top_k > -1; each in turn is skipped when its size is below 1e-5, else kept unless its overlap
// with a box kept before is above `threshold`. Stops once `max_kept` boxes are kept (< 0: no
// limit), which changes nothing about the boxes kept up to then. Returns the kept indices, best
// first, in scratch->kept.
void SuppressByLoss(const std::vector<NormalizedBox>& boxes, const std::vector<float>& scores,
                    float threshold, int top_k, int max_kept, MiningScratch* scratch);

// Mines one image: `loss` per prior; `boxes` per prior (used only with s.nms). Updates
// matches->indices[0] (HARD_EXAMPLE) and fills matches->negatives. Precondition:
// s.share_location and s.mining != kNone.
void MineHardExamples(const MultiBoxSettings& s, const std::vector<float>& loss,
                      const std::vector<NormalizedBox>& boxes, ImageMatches* matches,
                      MiningScratch* scratch);

}  // namespace dtrain::detection
