// The test score of detection nets (the SSD fork's solver with eval_type "detection", and
// `dtrain test` on a net whose outputs are DetectionEvaluate tops): the rows each
// DetectionEvaluate output gives per batch, [-1, label, positives, -1, -1] per class and
// [item, label, score, tp, fp] per detection, collected over the test iterations and the ranks,
// then one mean average precision per output: the mean over the labels that have a positives
// row of each label's average precision (detection/average_precision.h), a label without
// detections counting 0, as the fork computes it. Rows with tp = fp = 0 (a detection matched
// to an unevaluated difficult box) are skipped, as there.
//
// Over several ranks the detections themselves are gathered (DetectionScores::Merge) and one mAP
// is computed from all of them: the fork's multi-node solver averaged per-rank mAPs instead.
// Not thread-safe.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "detection/average_precision.h"

namespace dtrain {

class Net;
class Tensor;

class DetectionScores {
 public:
  explicit DetectionScores(int outputs) : outputs_(outputs) {}

  // Adds the rows of output `output` (a tensor of R x 5 values). `name` is the output's blob name,
  // for messages: a tensor whose size is not a multiple of 5, a label or row kind out of range,
  // or a non-finite value is an error naming it.
  Status Add(int output, const Tensor& rows, const std::string& name);

  // Makes every rank's collection the union of all ranks' (in rank order), through `sum`, the
  // element-wise sum over the `shares` ranks; this rank is `share`.
  Status Merge(int share, int shares, const std::function<Status(std::vector<double>*)>& sum);

  struct Result {
    float mean_average_precision = 0;
    std::map<int, float> per_class;  // label -> average precision, for the labels with positives
  };
  // The mAP of output `output`. No positives row at all gives 0 (the fork divides by zero).
  StatusOr<Result> Score(int output, detection::ApVersion version) const;

 private:
  struct Detection {
    int label;
    float score;
    bool true_positive;
  };
  struct Collected {
    std::map<int, int> positives;  // label -> number of ground-truth boxes
    std::vector<Detection> detections;
  };

  int outputs_;
  std::map<int, Collected> collected_;  // by output
};

// Which outputs of `net` (in output_blob_indices order) are tops of DetectionEvaluate layers.
std::vector<bool> DetectionEvaluationOutputs(const Net& net);

// An error naming the first output of `net` that is a top of an EvalDetection layer (YOLO's
// per-image counts and [label, score, tp, fp] rows, which DetectionScores would misread as rows
// of 5; Intel Caffe's eval_type "detection" stops at it as well), else Ok.
Status RefuseEvalDetectionOutputs(const Net& net);

}  // namespace dtrain
