// Average precision of one class from its scored detections: the SSD fork's ComputeAP, as its
// solver computes the test mAP from DetectionEvaluate's rows.
//
// The detections are sorted by descending score (equal scores keep their order); after the k-th,
// precision = tp / (tp + fp) and recall = tp / num_positives. Then, by ap_version:
//   "11point"      (VOC2007) the mean over r = 0, 0.1, ..., 1 of the largest precision at a
//                  recall >= r, each largest precision carried down to the r below once a recall
//                  below r is seen, exactly as the fork's loop (recalls compared as float against
//                  r in double);
//   "MaxIntegral"  (VOC2012, ILSVRC) the area under the precision envelope (the precision at each
//                  recall replaced by the largest at any recall at or above it), steps of recall
//                  below 1e-6 skipped;
//   "Integral"     the area under the raw curve: sum of precision x recall step, steps below 1e-6
//                  skipped.
// Computed in float, summed in the fork's order. No detections or no positives: 0 and empty
// curves. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain::detection {

enum class ApVersion { kElevenPoint, kMaxIntegral, kIntegral };

// "11point", "MaxIntegral" or "Integral"; anything else is an error naming the three.
StatusOr<ApVersion> ParseApVersion(const std::string& name);

struct ScoredDetection {
  float score = 0;
  bool true_positive = false;  // else a false positive
};

struct PrecisionRecall {
  std::vector<float> precision, recall;  // after each detection, in descending score order
  float average_precision = 0;
};

// Errors: num_positives < 0, a NaN score, more true positives than num_positives (the fork
// aborts on the last).
StatusOr<PrecisionRecall> ComputeAveragePrecision(const std::vector<ScoredDetection>& detections,
                                                  int num_positives, ApVersion version);

}  // namespace dtrain::detection
