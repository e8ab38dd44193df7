// The training targets of SSD's MultiBoxLoss, one image at a time: the ground truth read from the
// label rows, the matches of priors (or decoded predictions) to it, the regression targets of the
// matched predictions and the class each prediction is trained towards, with the per-prediction
// losses that hard-negative mining ranks by (detection/mining.h). These are the SSD fork's
// GetGroundTruth, FindMatches, EncodeLocPrediction, EncodeConfPrediction's labels and
// ComputeConfLoss (src/caffe/util/bbox_util.cpp in Intel Caffe), as plain functions.
//
// Layouts, as the fork's blobs hold them:
//   ground truth rows  8 floats each: [item, label, instance, xmin, ymin, xmax, ymax, difficult]
//   an image's loc     per prior, per location class (1 when share_location, else num_classes):
//                      4 offsets
//   an image's conf    per prior: num_classes scores
// Nothing here owns memory beyond the vectors it is handed, which it reuses (clear, not shrink),
// so a caller that keeps them allocates only while its batch grows. Pure; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "detection/box.h"
#include "detection/box_coder.h"
#include "detection/match.h"

namespace dtrain::detection {

// MultiBoxLossParameter's enums.
enum class LocLossType { kL2 = 0, kSmoothL1 = 1 };
enum class ConfLossType { kSoftmax = 0, kLogistic = 1 };
enum class MiningType { kNone = 0, kMaxNegative = 1, kHardExample = 2 };

// MultiBoxLossParameter as plain values (the layer checks them; see multibox_loss_layer.h).
struct MultiBoxSettings {
  int num_classes = 0;
  bool share_location = true;
  int background_label_id = 0;  // in [0, num_classes)
  MatchType match_type = MatchType::kPerPrediction;
  float overlap_threshold = 0.5f;
  bool use_prior_for_matching = true;
  bool use_difficult_gt = true;
  CodeType code_type = CodeType::kCorner;
  bool encode_variance_in_target = false;
  bool map_object_to_agnostic = false;  // every object is class background + 1
  bool ignore_cross_boundary = false;
  bool bp_inside = false;
  LocLossType loc_loss = LocLossType::kSmoothL1;
  ConfLossType conf_loss = ConfLossType::kSoftmax;
  MiningType mining = MiningType::kMaxNegative;
  float neg_pos_ratio = 3;
  float neg_overlap = 0.5f;
  int sample_size = 64;
  bool nms = false;  // nms_param given with nms_threshold > 0
  float nms_threshold = 0;
  int nms_top_k = 0;  // nms_param.top_k as given (unset: 0, which keeps nothing, as in the fork)
  bool use_prior_for_nms = false;

  int loc_classes() const { return share_location ? 1 : num_classes; }
};

// Reads `num_rows` ground-truth rows into per_image[0, num_images) (each cleared first): rows
// whose item truncates to -1 are skipped (padding, or the single row of an empty batch), so are
// difficult rows without use_difficult_gt; a box keeps its label and difficult flag. An image
// without a kept row has an empty list, the fork's "no ground truth". Errors, naming the row: an
// item or label that is not finite or beyond an int, an item outside [0, num_images), the
// background label, a label outside [0, num_classes) (with map_object_to_agnostic any label >= 0
// is an object). Coordinates are taken as they are (NaN boxes match nothing).
Status ReadGroundTruth(const float* rows, int64_t num_rows, int num_images,
                       const MultiBoxSettings& s,
                       std::vector<std::vector<NormalizedBox>>* per_image);

// One image's matches: per location class c (indices.size() == loc_classes; when !share_location
// the background's class is left empty), per prior: the index into the image's ground truth, -1
// unmatched, -2 ignored (crossing the boundary, with ignore_cross_boundary). Overlaps as
// Matches::overlaps. An image without ground truth has every class's vectors empty, so it has
// no positives and mining picks no negatives in it, as in the fork (a class's vectors are
// cleared, not removed, so that their memory is reused). `negatives` holds the mined negatives
// (ascending priors), filled by MineHardExamples (detection/mining.h).
struct ImageMatches {
  std::vector<std::vector<int>> indices;
  std::vector<std::vector<float>> overlaps;
  std::vector<int> negatives;
};

// What FindImageMatches works in, reused between calls.
struct ImageMatchScratch {
  MatchScratch match;
  Matches matches;
  std::vector<NormalizedBox> decoded;
};

// Matches one image's priors to its ground truth (FindMatches): with use_prior_for_matching the
// priors against every ground truth, then, without share_location, each match given to the
// location class of its ground truth's label; otherwise each location class's predictions,
// decoded (not clipped) from `image_loc`, against the ground truth of that class (every one when
// shared). Precondition: without use_prior_for_matching, PriorProblem is "" for every prior.
void FindImageMatches(const std::vector<NormalizedBox>& ground_truth,
                      const std::vector<Prior>& priors,
                      const std::vector<NormalizedBox>& prior_boxes, const float* image_loc,
                      const MultiBoxSettings& s, ImageMatchScratch* scratch, ImageMatches* out);

// The box that location class c predicts at prior p of an image (decoded, not clipped).
NormalizedBox DecodedPrediction(const std::vector<Prior>& priors, const float* image_loc, int p,
                                int c, const MultiBoxSettings& s);

// A matched prediction's regression pair (EncodeLocPrediction): the 4 predicted offsets and the
// 4 target offsets (the ground truth encoded relative to the prior), and where the prediction
// lies among the image's loc values. With bp_inside, a coordinate whose prior (or, without
// use_prior_for_matching, decoded prediction) lies outside [0, 1] takes the target's value, so
// it adds no loss and no gradient; with encode_variance_in_target both are divided by the
// prior's variances.
struct LocPair {
  std::array<float, 4> prediction, target;
  int64_t offset;  // of the prediction's first value in the image's loc
  int prior;
};

// Appends the pairs of every match of one image, by location class then prior. Errors (naming
// the prior) where EncodeBox refuses, or a variance is not positive with
// encode_variance_in_target (the fork aborts on both).
Status AppendLocPairs(const std::vector<NormalizedBox>& ground_truth,
                      const std::vector<Prior>& priors, const float* image_loc,
                      const ImageMatches& matches, const MultiBoxSettings& s,
                      std::vector<LocPair>* out);

// Sum over the 4 coordinates of 0.5 d^2 (L2) or smooth L1 (0.5 d^2 where |d| < 1, else
// |d| - 0.5), d = prediction - target; and its derivative with respect to one prediction value.
float LocLoss(LocLossType type, const LocPair& pair);
float LocSlope(LocLossType type, float d);

// The class a matched prediction is trained towards: its ground truth's label, or
// background + 1 with map_object_to_agnostic.
int PositiveLabel(const NormalizedBox& ground_truth, const MultiBoxSettings& s);

// The label of each prior of one image for the confidence loss, into labels[0, P): the
// positive label of its match, in the last location class that matched it (the fork's
// EncodeConfPrediction writes each class's in turn; with share_location there is one), else
// `unmatched`.
void PriorLabels(const std::vector<NormalizedBox>& ground_truth, const ImageMatches& matches,
                 int num_priors, const MultiBoxSettings& s, int unmatched,
                 std::vector<int>* labels);

// The confidence loss of one prediction's scores for `label`: SOFTMAX -log(max(p_label, FLT_MIN))
// with p the softmax of the scores; LOGISTIC the sum over classes of the sigmoid cross-entropy
// with target 1 at `label` and 0 elsewhere (label -1: 0 everywhere).
float ConfLoss(ConfLossType type, const float* scores, int num_classes, int label);
// Writes scale times its gradient with respect to the scores: scale (p - onehot(label)), or
// scale (sigmoid(x) - target).
void ConfGradient(ConfLossType type, const float* scores, int num_classes, int label, float scale,
                  float* diff);

}  // namespace dtrain::detection
