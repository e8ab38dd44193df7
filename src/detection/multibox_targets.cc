#include "detection/multibox_targets.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

namespace dtrain::detection {
namespace {

// The int a float label field means (the fork's implicit conversion truncates); false when it is
// not finite or beyond an int.
bool TruncateToInt(float value, int* out) {
  const double v = std::trunc(static_cast<double>(value));
  if (!(v >= -2147483648.0 && v <= 2147483647.0)) return false;
  *out = static_cast<int>(v);
  return true;
}

std::string Row(int64_t i) { return "bottom 3 (ground truth) row " + std::to_string(i); }

}  // namespace

Status ReadGroundTruth(const float* rows, int64_t num_rows, int num_images,
                       const MultiBoxSettings& s,
                       std::vector<std::vector<NormalizedBox>>* per_image) {
  per_image->resize(num_images);
  for (std::vector<NormalizedBox>& boxes : *per_image) boxes.clear();
  for (int64_t i = 0; i < num_rows; ++i) {
    const float* r = rows + i * 8;
    int item = 0, label = 0;
    if (!TruncateToInt(r[0], &item)) {
      return InvalidArgument(Row(i) + ": the item " + std::to_string(r[0]) +
                             " is not an image index");
    }
    if (item == -1) continue;
    if (!TruncateToInt(r[1], &label)) {
      return InvalidArgument(Row(i) + ": the label " + std::to_string(r[1]) + " is not a class");
    }
    if (item < 0 || item >= num_images) {
      return InvalidArgument(Row(i) + ": item " + std::to_string(item) +
                             " is outside the batch [0, " + std::to_string(num_images) + ")");
    }
    if (label == s.background_label_id) {
      return InvalidArgument(Row(i) + " has the background label " + std::to_string(label) +
                             " (background_label_id)");
    }
    if (label < 0 || (!s.map_object_to_agnostic && label >= s.num_classes)) {
      return InvalidArgument(Row(i) + ": label " + std::to_string(label) + " is outside [0, " +
                             std::to_string(s.num_classes) + ") (num_classes)");
    }
    const bool difficult = r[7] != 0;
    if (difficult && !s.use_difficult_gt) continue;
    NormalizedBox box{r[3], r[4], r[5], r[6]};
    box.label = label;
    box.difficult = difficult;
    (*per_image)[item].push_back(box);
  }
  return Status::Ok();
}

NormalizedBox DecodedPrediction(const std::vector<Prior>& priors, const float* image_loc, int p,
                                int c, const MultiBoxSettings& s) {
  const float* o = image_loc + (static_cast<int64_t>(p) * s.loc_classes() + c) * 4;
  return DecodeBox(priors[p], s.code_type, s.encode_variance_in_target, {o[0], o[1], o[2], o[3]});
}

void FindImageMatches(const std::vector<NormalizedBox>& ground_truth,
                      const std::vector<Prior>& priors,
                      const std::vector<NormalizedBox>& prior_boxes, const float* image_loc,
                      const MultiBoxSettings& s, ImageMatchScratch* scratch, ImageMatches* out) {
  const int num_priors = static_cast<int>(priors.size());
  const int loc_classes = s.loc_classes();
  out->indices.resize(loc_classes);
  out->overlaps.resize(loc_classes);
  out->negatives.clear();
  for (int c = 0; c < loc_classes; ++c) {
    out->indices[c].clear();
    out->overlaps[c].clear();
  }
  if (ground_truth.empty()) return;
  Matches& m = scratch->matches;
  if (s.use_prior_for_matching) {
    MatchBoxes(ground_truth, prior_boxes, -1, s.match_type, s.overlap_threshold,
               s.ignore_cross_boundary, &scratch->match, &m);
    if (s.share_location) {
      out->indices[0].swap(m.indices);
      out->overlaps[0].swap(m.overlaps);
      return;
    }
    // Each match goes to the location class of its ground truth's label; an ignored prior
    // (-2) is unmatched (-1) in every class, as the fork distributes them.
    for (int c = 0; c < loc_classes; ++c) {
      if (c == s.background_label_id) continue;
      out->indices[c].assign(num_priors, -1);
      out->overlaps[c] = m.overlaps;
      for (int p = 0; p < num_priors; ++p) {
        const int g = m.indices[p];
        if (g > -1 && ground_truth[g].label == c) out->indices[c][p] = g;
      }
    }
    return;
  }
  std::vector<NormalizedBox>& decoded = scratch->decoded;
  decoded.resize(num_priors);
  for (int c = 0; c < loc_classes; ++c) {
    if (!s.share_location && c == s.background_label_id) continue;
    for (int p = 0; p < num_priors; ++p) decoded[p] = DecodedPrediction(priors, image_loc, p, c, s);
    MatchBoxes(ground_truth, decoded, s.share_location ? -1 : c, s.match_type, s.overlap_threshold,
               s.ignore_cross_boundary, &scratch->match, &m);
    out->indices[c].swap(m.indices);
    out->overlaps[c].swap(m.overlaps);
  }
}

Status AppendLocPairs(const std::vector<NormalizedBox>& ground_truth,
                      const std::vector<Prior>& priors, const float* image_loc,
                      const ImageMatches& matches, const MultiBoxSettings& s,
                      std::vector<LocPair>* out) {
  const int loc_classes = s.loc_classes();
  for (int c = 0; c < static_cast<int>(matches.indices.size()); ++c) {
    const std::vector<int>& match = matches.indices[c];
    for (int p = 0; p < static_cast<int>(match.size()); ++p) {
      if (match[p] <= -1) continue;
      const Prior& prior = priors[p];
      StatusOr<NormalizedBox> encoded =
          EncodeBox(prior, s.code_type, s.encode_variance_in_target, ground_truth[match[p]]);
      if (!encoded.ok()) {
        return InvalidArgument("prior " + std::to_string(p) +
                               ", matched to a ground truth: " + encoded.status().message());
      }
      LocPair pair;
      pair.offset = (static_cast<int64_t>(p) * loc_classes + c) * 4;
      pair.prior = p;
      const float* o = image_loc + pair.offset;
      pair.prediction = {o[0], o[1], o[2], o[3]};
      pair.target = {encoded->xmin, encoded->ymin, encoded->xmax, encoded->ymax};
      if (s.bp_inside) {
        const NormalizedBox where = s.use_prior_for_matching
                                        ? prior.box
                                        : DecodeBox(prior, s.code_type, s.encode_variance_in_target,
                                                    {o[0], o[1], o[2], o[3]});
        const float coordinates[4] = {where.xmin, where.ymin, where.xmax, where.ymax};
        for (int k = 0; k < 4; ++k) {
          if (coordinates[k] < 0 || coordinates[k] > 1) pair.prediction[k] = pair.target[k];
        }
      }
      if (s.encode_variance_in_target) {
        for (int k = 0; k < 4; ++k) {
          const float v = prior.variance[k];
          if (!(v > 0)) {
            return InvalidArgument("prior " + std::to_string(p) + " has variance " +
                                   std::to_string(v) +
                                   " (encode_variance_in_target divides by it; it must be "
                                   "positive)");
          }
          pair.prediction[k] /= v;
          pair.target[k] /= v;
        }
      }
      out->push_back(pair);
    }
  }
  return Status::Ok();
}

float LocSlope(LocLossType type, float d) {
  if (type == LocLossType::kL2 || std::fabs(d) < 1) return d;
  return static_cast<float>((d > 0) - (d < 0));
}

float LocLoss(LocLossType type, const LocPair& pair) {
  float loss = 0;
  for (int k = 0; k < 4; ++k) {
    const float d = pair.prediction[k] - pair.target[k];
    const float magnitude = std::fabs(d);
    loss += type == LocLossType::kL2 || magnitude < 1 ? 0.5f * d * d : magnitude - 0.5f;
  }
  return loss;
}

int PositiveLabel(const NormalizedBox& ground_truth, const MultiBoxSettings& s) {
  return s.map_object_to_agnostic ? s.background_label_id + 1 : ground_truth.label;
}

void PriorLabels(const std::vector<NormalizedBox>& ground_truth, const ImageMatches& matches,
                 int num_priors, const MultiBoxSettings& s, int unmatched,
                 std::vector<int>* labels) {
  labels->assign(num_priors, unmatched);
  for (const std::vector<int>& match : matches.indices) {
    for (int p = 0; p < static_cast<int>(match.size()); ++p) {
      if (match[p] > -1) (*labels)[p] = PositiveLabel(ground_truth[match[p]], s);
    }
  }
}

float ConfLoss(ConfLossType type, const float* x, int num_classes, int label) {
  if (type == ConfLossType::kSoftmax) {
    float top = x[0];
    for (int c = 1; c < num_classes; ++c) top = std::max(top, x[c]);
    float sum = 0;
    for (int c = 0; c < num_classes; ++c) sum += std::exp(x[c] - top);
    const float p = std::exp(x[label] - top) / sum;
    return -std::log(std::max(p, FLT_MIN));
  }
  // -(x (t - [x >= 0]) - log(1 + exp(x - 2 x [x >= 0]))), stable for either sign of x.
  float loss = 0;
  for (int c = 0; c < num_classes; ++c) {
    const float t = c == label ? 1.f : 0.f;
    const float positive = x[c] >= 0 ? 1.f : 0.f;
    loss -= x[c] * (t - positive) - std::log(1 + std::exp(x[c] - 2 * x[c] * positive));
  }
  return loss;
}

void ConfGradient(ConfLossType type, const float* x, int num_classes, int label, float scale,
                  float* diff) {
  if (type == ConfLossType::kSoftmax) {
    float top = x[0];
    for (int c = 1; c < num_classes; ++c) top = std::max(top, x[c]);
    float sum = 0;
    for (int c = 0; c < num_classes; ++c) {
      diff[c] = std::exp(x[c] - top);
      sum += diff[c];
    }
    for (int c = 0; c < num_classes; ++c) {
      diff[c] = scale * (diff[c] / sum - (c == label ? 1.f : 0.f));
    }
    return;
  }
  for (int c = 0; c < num_classes; ++c) {
    const float sigmoid = 1.f / (1.f + std::exp(-x[c]));
    diff[c] = scale * (sigmoid - (c == label ? 1.f : 0.f));
  }
}

}  // namespace dtrain::detection
