#include "solver/detection_scores.h"

#include <cmath>
#include <numeric>

#include "core/tensor.h"
#include "layers/layer.h"
#include "net/net.h"

namespace dtrain {

Status DetectionScores::Add(int output, const Tensor& rows, const std::string& name) {
  if (rows.count() % 5 != 0) {
    return InvalidArgument("test output '" + name + "' holds " + std::to_string(rows.count()) +
                           " values, not rows of 5 (DetectionEvaluate's [item, label, score, "
                           "tp, fp]); eval_type \"detection\" needs DetectionEvaluate outputs");
  }
  Collected& collected = collected_[output];
  const float* v = rows.data();
  for (int64_t r = 0; r < rows.count() / 5; ++r, v += 5) {
    for (int k = 0; k < 5; ++k) {
      if (!std::isfinite(v[k])) {
        return InvalidArgument("test output '" + name + "' row " + std::to_string(r) +
                               " holds a non-finite value");
      }
    }
    if (std::fabs(v[1]) > (1 << 24)) {
      return InvalidArgument("test output '" + name + "' row " + std::to_string(r) + ": label " +
                             std::to_string(v[1]) + " is out of range");
    }
    const int label = static_cast<int>(v[1]);
    if (static_cast<int>(v[0]) == -1) {
      collected.positives[label] += static_cast<int>(v[2]);
      continue;
    }
    const int tp = static_cast<int>(v[3]), fp = static_cast<int>(v[4]);
    if (tp == 0 && fp == 0) continue;
    collected.detections.push_back({label, v[2], tp != 0});
  }
  return Status::Ok();
}

Status DetectionScores::Merge(int share, int shares,
                              const std::function<Status(std::vector<double>*)>& sum) {
  if (shares <= 1) return Status::Ok();
  // This rank's collection as numbers: per output, its positives count and detections count,
  // then (label, positives) pairs and (label, score, tp) triples. Every value is an integer or a
  // float, so a double holds it exactly.
  std::vector<double> mine;
  for (int j = 0; j < outputs_; ++j) {
    const Collected& c = collected_[j];
    mine.push_back(static_cast<double>(c.positives.size()));
    mine.push_back(static_cast<double>(c.detections.size()));
    for (const auto& [label, n] : c.positives) {
      mine.push_back(label);
      mine.push_back(n);
    }
    for (const Detection& d : c.detections) {
      mine.push_back(d.label);
      mine.push_back(d.score);
      mine.push_back(d.true_positive ? 1 : 0);
    }
  }
  std::vector<double> lengths(shares, 0);
  lengths[share] = static_cast<double>(mine.size());
  DT_RETURN_IF_ERROR(sum(&lengths));
  const size_t offset =
      static_cast<size_t>(std::accumulate(lengths.begin(), lengths.begin() + share, 0.0));
  std::vector<double> all(static_cast<size_t>(std::accumulate(lengths.begin(), lengths.end(), 0.0)),
                          0);
  std::copy(mine.begin(), mine.end(), all.begin() + static_cast<std::ptrdiff_t>(offset));
  DT_RETURN_IF_ERROR(sum(&all));

  collected_.clear();
  size_t at = 0;
  for (int rank = 0; rank < shares; ++rank) {
    for (int j = 0; j < outputs_; ++j) {
      Collected& c = collected_[j];
      const size_t positives = static_cast<size_t>(all[at++]);
      const size_t detections = static_cast<size_t>(all[at++]);
      for (size_t i = 0; i < positives; ++i, at += 2) {
        c.positives[static_cast<int>(all[at])] += static_cast<int>(all[at + 1]);
      }
      for (size_t i = 0; i < detections; ++i, at += 3) {
        c.detections.push_back(
            {static_cast<int>(all[at]), static_cast<float>(all[at + 1]), all[at + 2] != 0});
      }
    }
  }
  return Status::Ok();
}

StatusOr<DetectionScores::Result> DetectionScores::Score(int output,
                                                         detection::ApVersion version) const {
  Result result;
  auto it = collected_.find(output);
  if (it == collected_.end() || it->second.positives.empty()) return result;
  const Collected& c = it->second;
  double total = 0;
  for (const auto& [label, positives] : c.positives) {
    std::vector<detection::ScoredDetection> scored;
    for (const Detection& d : c.detections) {
      if (d.label == label) scored.push_back({d.score, d.true_positive});
    }
    float ap = 0;
    if (!scored.empty()) {
      DT_ASSIGN_OR_RETURN(detection::PrecisionRecall curve,
                          detection::ComputeAveragePrecision(scored, positives, version));
      ap = curve.average_precision;
    }
    result.per_class[label] = ap;
    total += ap;
  }
  result.mean_average_precision = static_cast<float>(total / c.positives.size());
  return result;
}

std::vector<bool> DetectionEvaluationOutputs(const Net& net) {
  std::vector<bool> found;
  for (int id : net.output_blob_indices()) {
    bool evaluated = false;
    for (size_t i = 0; i < net.layers().size(); ++i) {
      for (int top : net.top_ids()[i]) {
        if (top == id && std::string(net.layers()[i]->type()) == "DetectionEvaluate") {
          evaluated = true;
        }
      }
    }
    found.push_back(evaluated);
  }
  return found;
}

Status RefuseEvalDetectionOutputs(const Net& net) {
  for (int id : net.output_blob_indices()) {
    for (size_t i = 0; i < net.layers().size(); ++i) {
      for (int top : net.top_ids()[i]) {
        if (top != id || std::string(net.layers()[i]->type()) != "EvalDetection") continue;
        return InvalidArgument(
            "test output '" + net.blob_names()[id] +
            "' is EvalDetection's (per image: counts per class, then [label, score, tp, fp] "
            "rows), not DetectionEvaluate's rows of 5: eval_type \"detection\" cannot score it "
            "(Intel Caffe's solver stops at it too); eval_type \"classification\" averages each "
            "of its values over the test iterations, as Intel's does");
      }
    }
  }
  return Status::Ok();
}

}  // namespace dtrain
