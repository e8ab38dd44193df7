// EvalDetectionLayer: YOLO v2's test-time scoring ("EvalDetection", the YOLO v2 port Intel Caffe
// carries): the boxes a RegionLoss-style prediction map gives, after NMS, marked true or false
// positive against the ground truth, per image.
//
// Bottoms: predictions (N, C, H, W) with C H W = side^2 num_object (num_class + 5), read as
// Intel reads them: each image's values transposed to (H W, C) order, then anchor n of cell
// (j, i) at offset ((j side + i) num_object + n) (num_class + 5), values (tx, ty, tw, th,
// objectness, class scores); so (N, num_object (num_class + 5), side, side), RegionLoss's
// layout, reads as expected. Labels (1, 1, G, 8) from AnnotatedData (layers/region_labels.h; a row
// of item N is skipped, as Intel's layer makes room for it). An optional third bottom (Intel's
// files pass the image) is not read.
// Top: (N, num_class + side^2 num_object 4), per image:
//   [0, num_class): the number of truths of each class;
//   then 4 values per kept detection [label, score, tp, fp], the rest 0.
//
// Per image: every anchor's box (detection/region_box.h, anchor n of biases[2n], biases[2n + 1]
// cells), its label the first largest softmax class probability q, its score by score_type:
// OBJ sigmoid(objectness), PROB q, MULTIPLY (default) their product. With nms >= 0: all boxes
// sorted by score, highest first (equal scores keep grid order; Intel's unstable sort leaves
// it open), then greedy class-agnostic suppression of every box whose IoU with a kept one is
// >= nms; kept boxes of score below 0.005 dropped; the rest grouped by label, labels ascending,
// by score within one. With nms < 0 (the default -1) Intel's layer keeps no detection at all,
// and neither does this one: only the class counts are written.
// A detection of a class without truths is [label, score, 0, 1]. Otherwise its best IoU over the
// truths of its class (the first of equals) decides: >= threshold and that truth unclaimed:
// [label, score, 1, 0], claiming it; >= threshold and claimed: [label, score, 0, 1]; below
// threshold: [label, score, 0, 0] (Intel's: neither true nor false positive).
// No gradient (Intel's backward is not implemented; a net that needs one is an error).
//
// How a solver scores it: Intel's solver reads EvalDetection's top only through
// eval_type "classification" (the default), as a mean of every element over the test
// iterations; its eval_type "detection" stops at it (it requires DetectionEvaluate's rows of 5).
// dtrain's solver does the same means, and its eval_type "detection" refuses it by name
// (solver/detection_scores.h).
//
// A prediction value that is not finite is an error naming it (Intel sorts NaN scores, which
// is undefined behaviour).
// Parameters (eval_detection_param): side, num_class, num_object, threshold (in [0, 1]),
// score_type, nms (finite), biases (exactly 2 num_object, positive); sqrt and constriant (the
// YOLO v1 layout's) are read and have no effect, as in Intel's layer. Intel's layer scores 5
// anchors per cell whatever num_object says (reading other cells' values, or past the bottom,
// when it is below 5); dtrain scores num_object anchors. Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "detection/region_box.h"
#include "layers/layer.h"
#include "layers/region_labels.h"

namespace dtrain {

class EvalDetectionLayer : public Layer {
 public:
  EvalDetectionLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "EvalDetection"; }
  int MinBottomBlobs() const override { return 2; }
  int MaxBottomBlobs() const override { return 3; }
  int ExactNumTopBlobs() const override { return 1; }
  bool HasGradient() const override { return false; }
  bool AllowForceBackward(int bottom_index) const override { return false; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {}

 private:
  struct Scored {
    int label;
    float score;
    detection::CenterBox box;
  };
  // The detections of one image (its values in (H W, C) order), grouped as the top lists them.
  void Detect(const float* values);
  // Writes one image's counts and rows to `out`.
  void Score(const std::vector<RegionTruth>& truths, float* out) const;

  int side_ = 0, num_class_ = 0, num_ = 0;
  float threshold_ = 0, nms_ = 0;
  int score_type_ = 2;  // EvalDetectionParameter::ScoreType
  std::vector<float> biases_;

  // Scratch, reused per image.
  std::vector<float> swapped_;
  std::vector<Scored> boxes_, kept_;
  std::vector<int> order_;
  std::vector<std::vector<RegionTruth>> truths_;
};

}  // namespace dtrain
