#include "detection/average_precision.h"

#include <algorithm>
#include <cmath>

namespace dtrain::detection {

StatusOr<ApVersion> ParseApVersion(const std::string& name) {
  if (name == "11point") return ApVersion::kElevenPoint;
  if (name == "MaxIntegral") return ApVersion::kMaxIntegral;
  if (name == "Integral") return ApVersion::kIntegral;
  return InvalidArgument("unknown ap_version \"" + name +
                         "\" (known: \"11point\", \"MaxIntegral\", \"Integral\")");
}

StatusOr<PrecisionRecall> ComputeAveragePrecision(const std::vector<ScoredDetection>& detections,
                                                  int num_positives, ApVersion version) {
  if (num_positives < 0) {
    return InvalidArgument("the number of positives is " + std::to_string(num_positives));
  }
  for (const ScoredDetection& d : detections) {
    if (std::isnan(d.score)) return InvalidArgument("a detection's score is NaN");
  }
  PrecisionRecall out;
  if (detections.empty() || num_positives == 0) return out;
  std::vector<ScoredDetection> sorted = detections;
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const ScoredDetection& a, const ScoredDetection& b) { return a.score > b.score; });
  const int num = static_cast<int>(sorted.size());
  int tp = 0, fp = 0;
  for (const ScoredDetection& d : sorted) {
    (d.true_positive ? tp : fp) += 1;
    if (tp > num_positives) {
      return InvalidArgument(std::to_string(tp) + " true positives but only " +
                             std::to_string(num_positives) + " positives");
    }
    out.precision.push_back(static_cast<float>(tp) / (tp + fp));
    out.recall.push_back(static_cast<float>(tp) / num_positives);
  }
  const std::vector<float>& prec = out.precision;
  const std::vector<float>& rec = out.recall;
  const float eps = 1e-6f;
  float ap = 0;
  switch (version) {
    case ApVersion::kElevenPoint: {
      // For r = 1.0 down to 0.0: scan recalls from the back (from where the last r stopped);
      // the first recall below r passes r's largest precision down to the next r.
      std::vector<float> max_precision(11, 0.f);
      int start = num - 1;
      for (int j = 10; j >= 0; --j) {
        for (int i = start; i >= 0; --i) {
          if (rec[i] < j / 10.) {
            start = i;
            if (j > 0) max_precision[j - 1] = max_precision[j];
            break;
          }
          max_precision[j] = std::max(max_precision[j], prec[i]);
        }
      }
      for (int j = 10; j >= 0; --j) ap += max_precision[j] / 11;
      break;
    }
    case ApVersion::kMaxIntegral: {
      float cur_rec = rec.back();
      float cur_prec = prec.back();
      for (int i = num - 2; i >= 0; --i) {
        cur_prec = std::max(prec[i], cur_prec);
        if (std::fabs(cur_rec - rec[i]) > eps) ap += cur_prec * std::fabs(cur_rec - rec[i]);
        cur_rec = rec[i];
      }
      ap += cur_rec * cur_prec;
      break;
    }
    case ApVersion::kIntegral: {
      float prev_rec = 0;
      for (int i = 0; i < num; ++i) {
        if (std::fabs(rec[i] - prev_rec) > eps) ap += prec[i] * std::fabs(rec[i] - prev_rec);
        prev_rec = rec[i];
      }
      break;
    }
  }
  out.average_precision = ap;
  return out;
}

}  // namespace dtrain::detection
