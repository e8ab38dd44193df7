// MultiBoxLossLayer: SSD's training loss (the SSD fork's MultiBoxLoss, as Intel Caffe carries
// it): priors matched to the ground truth, a localisation loss on the matched predictions and a
// confidence loss on the matched ones and the mined negatives.
//
// Bottoms: loc (N, P * 4 * L), L = 1 with share_location, else num_classes (per image, per prior,
// per location class: 4 offsets); conf (N, P * num_classes) (per prior: raw class scores); priors
// (1, 2, P * 4) as PriorBox writes them (boxes, then variances); ground truth (1, 1, G, 8), rows
// [item, label, instance, xmin, ymin, xmax, ymax, difficult] in normalised coordinates. Only
// the count per image of loc and conf is compared, so (N, P, 4) works as well. Top: the loss, a
// scalar (shape {}), loss weight 1 by default.
//
// Forward, per image (detection/multibox_targets.h, detection/mining.h):
//   1. its ground-truth rows (item -1 is skipped: padding, or the single row of an empty batch;
//      difficult rows too without use_difficult_gt);
//   2. matches (match_type BIPARTITE or PER_PREDICTION with overlap_threshold) of the priors,
//      or without use_prior_for_matching of the decoded predictions, to the ground truth;
//      ignore_cross_boundary_bbox leaves priors crossing the image's edge unmatched;
//   3. mining (mining_type, or the deprecated do_neg_mining): NONE takes every prior (matched
//      ones towards their class, the rest towards the background); MAX_NEGATIVE adds the
//      floor(positives * neg_pos_ratio) unmatched priors of overlap below neg_overlap with the
//      highest confidence loss; HARD_EXAMPLE keeps the sample_size priors of highest
//      confidence + localisation loss, matched or not; with nms_param (nms_threshold > 0) the
//      candidates pass the fork's plain NMS first (over the priors with use_prior_for_nms, else
//      the decoded predictions; nms_param.top_k unset is 0, which keeps nothing, as in the fork).
//   loc_loss = sum over the matches of f(prediction - target), the target the ground truth
//      encoded relative to the prior (code_type, encode_variance_in_target), f smooth L1
//      (0.5 d^2 where |d| < 1, else |d| - 0.5) or L2 (0.5 d^2) per coordinate (bp_inside: a
//      coordinate of a prior, or decoded prediction, outside [0, 1] counts 0);
//   conf_loss = sum over the chosen priors of -log(max(softmax_label, FLT_MIN)) (SOFTMAX) or
//      the sigmoid cross-entropy summed over classes against a one-hot target (LOGISTIC; a
//      negative's target is the background; an unmatched prior without mining has all-zero
//      targets, as the fork's targets are with background_label_id 0), the class being the
//      ground truth's label (map_object_to_agnostic: background_label_id + 1);
//   loss = loc_weight * loc_loss / n + conf_loss / n, n = loss_param.normalization of (N,
//      P, matches): VALID (default) the matches after mining, BATCH_SIZE N, FULL N P, NONE 1,
//      PRE_FIXED pre_fixed_normalizer, at least 1; the deprecated `normalize` when
//      normalization is unset (false: BATCH_SIZE). A term whose bottom has propagate_down:
//      false in the layer's parameters is left out, as the fork does.
// Backward: d loc = g loc_weight f'(d) / n at the matched predictions, 0 elsewhere;
// d conf = g (softmax - onehot) / n or g (sigmoid - target) / n at the chosen priors, 0
// elsewhere (g: the top's diff). With encode_variance_in_target the fork's gradient is f'(d) of
// the divided difference without the 1 / variance of its derivative; dtrain gives the same. The
// priors and the ground truth get no gradient (a net in which they would need one is an error
// naming the bottom).
//
// Refused by name: num_classes unset or 0; background_label_id not below num_classes; a
// do_neg_mining that contradicts mining_type; mining without share_location; HARD_EXAMPLE with
// sample_size <= 0; map_object_to_agnostic unless num_classes is 2 and background_label_id 0;
// a loc_weight, neg_pos_ratio or threshold that is NaN (or infinite, or a negative ratio);
// bottoms whose sizes disagree; a ground-truth row whose item is outside the batch or whose
// label is the background or outside [0, num_classes); priors without positive width and height
// where CENTER_SIZE or CORNER_SIZE decode predictions relative to them. Where the fork reads an
// item other than -1 outside the batch it ignores the row silently; dtrain refuses it.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "detection/mining.h"
#include "detection/multibox_targets.h"
#include "layers/layer.h"

namespace dtrain {

class MultiBoxLossLayer : public Layer {
 public:
  MultiBoxLossLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "MultiBoxLoss"; }
  int ExactNumBottomBlobs() const override { return 4; }
  int ExactNumTopBlobs() const override { return 1; }
  bool AutoTopBlobs() const override { return true; }
  float DefaultLossWeight(int top_index) const override { return top_index == 0 ? 1.f : 0.f; }
  bool AllowForceBackward(int bottom_index) const override { return bottom_index < 2; }
  bool BottomHasGradient(int bottom_index) const override { return bottom_index < 2; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

  // After a forward: the matches (after mining) and the mined negatives.
  int num_matches() const { return static_cast<int>(loc_pairs_.size()); }
  int num_negatives() const { return num_negatives_; }

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  // A prior whose scores enter the confidence loss: where they lie in conf, and the class.
  struct ConfRow {
    int64_t offset;
    int label;  // -1: every target 0 (LOGISTIC)
  };

  Status ReadPriors(const Tensor& priors);
  // Steps 2 and 3 of the forward for image n.
  Status MatchAndMine(int n, const float* image_loc, const float* image_conf);

  detection::MultiBoxSettings s_;
  float loc_weight_ = 1;
  int normalization_ = 1;  // LossParameter::NormalizationMode
  bool loc_in_loss_ = true, conf_in_loss_ = true;
  int num_priors_ = 0;

  // Per forward, kept for backward; reused, so a steady-state iteration allocates nothing.
  std::vector<detection::Prior> priors_;
  std::vector<detection::NormalizedBox> prior_boxes_;
  std::vector<std::vector<detection::NormalizedBox>> ground_truth_;  // per image
  std::vector<detection::ImageMatches> matches_;                     // per image
  std::vector<detection::LocPair> loc_pairs_;  // offsets into the whole of bottom 0
  std::vector<ConfRow> conf_rows_;
  int num_negatives_ = 0;
  float normalizer_ = 1;

  // Scratch.
  detection::ImageMatchScratch match_scratch_;
  detection::MiningScratch mining_scratch_;
  std::vector<detection::LocPair> image_pairs_;
  std::vector<int> labels_;
  std::vector<float> prior_loss_;
  std::vector<detection::NormalizedBox> decoded_;
};

}  // namespace dtrain
