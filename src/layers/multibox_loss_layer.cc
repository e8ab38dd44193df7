#include "layers/multibox_loss_layer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/logging.h"
#include "layers/loss_normalization.h"
#include "proto/detection_params.pb.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

using detection::ConfLossType;
using detection::LocLossType;
using detection::LocPair;
using detection::MiningType;

namespace {

std::string Number(float v) { return std::to_string(v); }

}  // namespace

Status MultiBoxLossLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const MultiBoxLossParameter& p = param_.multibox_loss_param();
  const std::string at = "multibox_loss_param.";
  if (!p.has_num_classes()) return Error(at + "num_classes is required");
  if (p.num_classes() < 1) return Error(at + "num_classes must be at least 1, got 0");
  StatusOr<int> classes = Dimension(at + "num_classes", p.num_classes());
  if (!classes.ok()) return classes.status();
  s_.num_classes = *classes;
  if (p.background_label_id() >= p.num_classes()) {
    return Error(at + "background_label_id " + std::to_string(p.background_label_id()) +
                 " must be below num_classes " + std::to_string(p.num_classes()));
  }
  s_.background_label_id = static_cast<int>(p.background_label_id());
  s_.share_location = p.share_location();
  s_.match_type = static_cast<detection::MatchType>(p.match_type());
  s_.overlap_threshold = p.overlap_threshold();
  s_.use_prior_for_matching = p.use_prior_for_matching();
  s_.use_difficult_gt = p.use_difficult_gt();
  s_.code_type = static_cast<detection::CodeType>(p.code_type());
  s_.encode_variance_in_target = p.encode_variance_in_target();
  s_.map_object_to_agnostic = p.map_object_to_agnostic();
  s_.ignore_cross_boundary = p.ignore_cross_boundary_bbox();
  s_.bp_inside = p.bp_inside();
  s_.loc_loss = static_cast<LocLossType>(p.loc_loss_type());
  s_.conf_loss = static_cast<ConfLossType>(p.conf_loss_type());
  s_.mining = static_cast<MiningType>(p.mining_type());
  s_.neg_pos_ratio = p.neg_pos_ratio();
  s_.neg_overlap = p.neg_overlap();
  s_.sample_size = p.sample_size();
  s_.use_prior_for_nms = p.use_prior_for_nms();
  loc_weight_ = p.loc_weight();

  if (!std::isfinite(loc_weight_)) return Error(at + "loc_weight is " + Number(loc_weight_));
  if (std::isnan(s_.overlap_threshold)) return Error(at + "overlap_threshold is NaN");
  if (std::isnan(s_.neg_overlap)) return Error(at + "neg_overlap is NaN");
  if (!(s_.neg_pos_ratio >= 0) || std::isinf(s_.neg_pos_ratio)) {
    return Error(at + "neg_pos_ratio must be finite and not negative, got " +
                 Number(s_.neg_pos_ratio));
  }
  if (p.has_do_neg_mining() && p.do_neg_mining() != (s_.mining != MiningType::kNone)) {
    return Error(at + "do_neg_mining (deprecated) is " + (p.do_neg_mining() ? "true" : "false") +
                 " but mining_type is " + MultiBoxLossParameter::MiningType_Name(p.mining_type()) +
                 "; give mining_type alone (NONE for no mining)");
  }
  if (s_.mining != MiningType::kNone && !s_.share_location) {
    return Error(at + "mining_type " + MultiBoxLossParameter::MiningType_Name(p.mining_type()) +
                 " needs share_location (the fork mines only shared locations); set "
                 "mining_type: NONE or share_location: true");
  }
  if (s_.mining == MiningType::kHardExample && s_.sample_size <= 0) {
    return Error(at + "sample_size must be positive for HARD_EXAMPLE, got " +
                 std::to_string(s_.sample_size));
  }
  if (s_.map_object_to_agnostic && (s_.num_classes != 2 || s_.background_label_id != 0)) {
    return Error(at +
                 "map_object_to_agnostic needs num_classes 2 and background_label_id 0 "
                 "(every object becomes class 1), got num_classes " +
                 std::to_string(s_.num_classes) + " and background_label_id " +
                 std::to_string(s_.background_label_id));
  }
  if (p.has_nms_param()) {
    const float threshold = p.nms_param().nms_threshold();
    if (std::isnan(threshold)) return Error(at + "nms_param.nms_threshold is NaN");
    s_.nms = threshold > 0;
    s_.nms_threshold = threshold;
    s_.nms_top_k = p.nms_param().top_k();
    if (s_.nms && s_.mining != MiningType::kNone && !p.nms_param().has_top_k()) {
      DT_LOG(WARNING) << "layer '" << name() << "' (MultiBoxLoss): " << at
                      << "nms_param has no top_k, which the fork reads as 0: mining keeps no "
                         "candidate (give top_k: -1 for all)";
    }
  }

  const LossParameter& loss = param_.loss_param();
  normalization_ = !loss.has_normalization() && loss.has_normalize()
                       ? (loss.normalize() ? LossParameter::VALID : LossParameter::BATCH_SIZE)
                       : loss.normalization();
  loc_in_loss_ = param_.propagate_down_size() == 0 || param_.propagate_down(0);
  conf_in_loss_ = param_.propagate_down_size() < 2 || param_.propagate_down(1);
  return Status::Ok();
}

Status MultiBoxLossLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& loc = *bottom[0];
  const Tensor& conf = *bottom[1];
  const Tensor& priors = *bottom[2];
  const Tensor& truth = *bottom[3];
  if (priors.num_axes() < 3 || priors.shape(1) != 2 || priors.count(3) != 1 ||
      priors.shape(2) % 4 != 0) {
    return Error("bottom 2 (priors) must be (1, 2, P * 4) as PriorBox writes it, got " +
                 priors.ShapeString());
  }
  num_priors_ = priors.shape(2) / 4;
  if (truth.num_axes() != 4 || truth.shape(0) != 1 || truth.shape(1) != 1 || truth.shape(3) != 8) {
    return Error("bottom 3 (ground truth) must be (1, 1, G, 8), got " + truth.ShapeString());
  }
  if (loc.num_axes() < 1 || conf.num_axes() < 1 || loc.shape(0) != conf.shape(0)) {
    return Error("bottoms 0 (loc) and 1 (conf) must have the same number of images, got " +
                 loc.ShapeString() + " and " + conf.ShapeString());
  }
  const int64_t loc_per_image = static_cast<int64_t>(num_priors_) * s_.loc_classes() * 4;
  if (loc.count(1) != loc_per_image) {
    return Error("Number of priors must match number of location predictions: bottom 0 (loc) " +
                 loc.ShapeString() + " has " + std::to_string(loc.count(1)) +
                 " values per image, " + std::to_string(num_priors_) + " priors x " +
                 std::to_string(s_.loc_classes()) +
                 " location classes x 4 = " + std::to_string(loc_per_image));
  }
  const int64_t conf_per_image = static_cast<int64_t>(num_priors_) * s_.num_classes;
  if (conf.count(1) != conf_per_image) {
    return Error("Number of priors must match number of confidence predictions: bottom 1 (conf) " +
                 conf.ShapeString() + " has " + std::to_string(conf.count(1)) +
                 " values per image, " + std::to_string(num_priors_) + " priors x " +
                 std::to_string(s_.num_classes) + " classes = " + std::to_string(conf_per_image));
  }
  top[0]->Reshape({});
  return Status::Ok();
}

Status MultiBoxLossLayer::ReadPriors(const Tensor& priors) {
  const int P = num_priors_;
  const float* data = priors.data();
  priors_.resize(P);
  prior_boxes_.resize(P);
  // Predictions are decoded relative to the priors when matching them, or when mining runs NMS
  // over them; CENTER_SIZE and CORNER_SIZE need priors of positive size there.
  const bool decodes = !s_.use_prior_for_matching ||
                       (s_.mining != MiningType::kNone && s_.nms && !s_.use_prior_for_nms);
  for (int p = 0; p < P; ++p) {
    const float* b = data + static_cast<int64_t>(p) * 4;
    const float* v = data + (static_cast<int64_t>(P) + p) * 4;
    priors_[p].box = {b[0], b[1], b[2], b[3]};
    priors_[p].variance = {v[0], v[1], v[2], v[3]};
    prior_boxes_[p] = priors_[p].box;
    if (decodes) {
      const std::string problem = detection::PriorProblem(priors_[p], s_.code_type);
      if (!problem.empty()) {
        return Error("bottom 2 (priors), prior " + std::to_string(p) + ": " + problem);
      }
    }
  }
  return Status::Ok();
}

Status MultiBoxLossLayer::MatchAndMine(int n, const float* image_loc, const float* image_conf) {
  const std::vector<detection::NormalizedBox>& truth = ground_truth_[n];
  detection::ImageMatches& matches = matches_[n];
  detection::FindImageMatches(truth, priors_, prior_boxes_, image_loc, s_, &match_scratch_,
                              &matches);
  if (s_.mining == MiningType::kNone || truth.empty()) return Status::Ok();

  // Each prior's loss: the confidence loss towards its class (the background when unmatched),
  // plus for HARD_EXAMPLE the localisation loss of a match.
  const int P = num_priors_, C = s_.num_classes;
  detection::PriorLabels(truth, matches, P, s_, s_.background_label_id, &labels_);
  prior_loss_.resize(P);
  for (int p = 0; p < P; ++p) {
    prior_loss_[p] =
        detection::ConfLoss(s_.conf_loss, image_conf + static_cast<int64_t>(p) * C, C, labels_[p]);
  }
  if (s_.mining == MiningType::kHardExample) {
    image_pairs_.clear();
    Status encoded =
        detection::AppendLocPairs(truth, priors_, image_loc, matches, s_, &image_pairs_);
    if (!encoded.ok()) return Error("image " + std::to_string(n) + ": " + encoded.message());
    for (const LocPair& pair : image_pairs_) {
      prior_loss_[pair.prior] += detection::LocLoss(s_.loc_loss, pair);
    }
  }
  const std::vector<detection::NormalizedBox>* boxes = &prior_boxes_;
  if (s_.nms && !s_.use_prior_for_nms) {
    decoded_.resize(P);
    for (int p = 0; p < P; ++p)
      decoded_[p] = detection::DecodedPrediction(priors_, image_loc, p, 0, s_);
    boxes = &decoded_;
  }
  detection::MineHardExamples(s_, prior_loss_, *boxes, &matches, &mining_scratch_);
  return Status::Ok();
}

Status MultiBoxLossLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const int N = bottom[0]->shape(0);
  const int P = num_priors_, C = s_.num_classes;
  const int64_t loc_per_image = static_cast<int64_t>(P) * s_.loc_classes() * 4;
  const int64_t conf_per_image = static_cast<int64_t>(P) * C;
  const float* loc = bottom[0]->data();
  const float* conf = bottom[1]->data();
  DT_RETURN_IF_ERROR(ReadPriors(*bottom[2]));
  Status read =
      detection::ReadGroundTruth(bottom[3]->data(), bottom[3]->shape(2), N, s_, &ground_truth_);
  if (!read.ok()) return Error(read.message());

  matches_.resize(N);
  loc_pairs_.clear();
  for (int n = 0; n < N; ++n) {
    const float* image_loc = loc + n * loc_per_image;
    DT_RETURN_IF_ERROR(MatchAndMine(n, image_loc, conf + n * conf_per_image));
    const size_t first = loc_pairs_.size();
    Status encoded = detection::AppendLocPairs(ground_truth_[n], priors_, image_loc, matches_[n],
                                               s_, &loc_pairs_);
    if (!encoded.ok()) return Error("image " + std::to_string(n) + ": " + encoded.message());
    for (size_t k = first; k < loc_pairs_.size(); ++k) loc_pairs_[k].offset += n * loc_per_image;
  }
  double loc_loss = 0;
  for (const LocPair& pair : loc_pairs_) loc_loss += detection::LocLoss(s_.loc_loss, pair);

  // The confidence rows: with mining, each image's positives then its negatives; without, every
  // prior of every image.
  conf_rows_.clear();
  num_negatives_ = 0;
  for (int n = 0; n < N; ++n) {
    const int64_t base = n * conf_per_image;
    const detection::ImageMatches& matches = matches_[n];
    if (s_.mining == MiningType::kNone) {
      const int unmatched = s_.conf_loss == ConfLossType::kSoftmax ? s_.background_label_id : -1;
      detection::PriorLabels(ground_truth_[n], matches, P, s_, unmatched, &labels_);
      for (int p = 0; p < P; ++p)
        conf_rows_.push_back({base + static_cast<int64_t>(p) * C, labels_[p]});
      continue;
    }
    for (const std::vector<int>& match : matches.indices) {
      for (int p = 0; p < static_cast<int>(match.size()); ++p) {
        if (match[p] <= -1) continue;
        conf_rows_.push_back({base + static_cast<int64_t>(p) * C,
                              detection::PositiveLabel(ground_truth_[n][match[p]], s_)});
      }
    }
    for (int p : matches.negatives) {
      conf_rows_.push_back({base + static_cast<int64_t>(p) * C, s_.background_label_id});
    }
    num_negatives_ += static_cast<int>(matches.negatives.size());
  }
  double conf_loss = 0;
  for (const ConfRow& row : conf_rows_) {
    conf_loss += detection::ConfLoss(s_.conf_loss, conf + row.offset, C, row.label);
  }

  normalizer_ = LossNormalizer(static_cast<LossParameter::NormalizationMode>(normalization_), N, P,
                               static_cast<int64_t>(loc_pairs_.size()),
                               param_.loss_param().pre_fixed_normalizer());
  double loss = 0;
  if (loc_in_loss_) loss += loc_weight_ * loc_loss / normalizer_;
  if (conf_in_loss_) loss += conf_loss / normalizer_;
  top[0]->mutable_data()[0] = static_cast<float>(loss);
  return Status::Ok();
}

void MultiBoxLossLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                     const TensorVec& bottom) {
  // The priors and the ground truth get no gradient (BottomHasGradient).
  const float g = top[0]->diff()[0];
  if (propagate_down[0]) {
    float* diff = bottom[0]->mutable_diff();
    std::fill(diff, diff + bottom[0]->count(), 0.f);
    const float scale = g * loc_weight_ / normalizer_;
    for (const LocPair& pair : loc_pairs_) {
      for (int k = 0; k < 4; ++k) {
        const float d = pair.prediction[k] - pair.target[k];
        diff[pair.offset + k] = scale * detection::LocSlope(s_.loc_loss, d);
      }
    }
  }
  if (propagate_down[1]) {
    const float* conf = bottom[1]->data();
    float* diff = bottom[1]->mutable_diff();
    std::fill(diff, diff + bottom[1]->count(), 0.f);
    const float scale = g / normalizer_;
    for (const ConfRow& row : conf_rows_) {
      detection::ConfGradient(s_.conf_loss, conf + row.offset, s_.num_classes, row.label, scale,
                              diff + row.offset);
    }
  }
}

}  // namespace dtrain
