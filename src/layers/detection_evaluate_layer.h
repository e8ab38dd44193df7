// DetectionEvaluateLayer: marks each detection true or false positive against the ground truth,
// for the solver's mAP (the SSD fork's DetectionEvaluate, as Intel Caffe carries it).
//
// Bottoms: detections (1, 1, D, 7) as DetectionOutput writes them ([image, label, score, xmin,
// ymin, xmax, ymax]; rows with image -1 are skipped, as are rows with label -1); ground truth
// (1, 1, G, 8) as AnnotatedData writes it ([image, label, instance, xmin, ymin, xmax, ymax,
// difficult]; reading stops at the first row with image -1). Ids and labels are truncated to
// integers, as in the fork. Top: (1, 1, R, 5), reshaped every forward, R = the number of
// non-background classes + the number of detection rows whose label is not -1:
//   first, per class c in [0, num_classes) but the background: [-1, c, positives, -1, -1], the
//   number of ground-truth boxes of class c (without the difficult ones unless
//   evaluate_difficult_gt);
//   then per image (ascending), per label (ascending), per detection by descending score:
//   [image, label, score, tp, fp]: tp = 1 for the first detection overlapping (Jaccard) a ground
//   truth of its class by at least overlap_threshold (its best match), fp = 1 for the others; a
//   detection whose best match is a difficult box, when !evaluate_difficult_gt, gets tp = fp = 0
//   (the solver ignores it). Rows the fork counts but never writes (image -1 with a label) stay 0.
//
// Parameters (detection_evaluate_param): num_classes (required, >= 1), background_label_id
// (default 0; 4294967295 means none, as the fork's int cast reads it; otherwise below
// num_classes), overlap_threshold (> 0), evaluate_difficult_gt (default true), name_size_file
// (lines "name height width": then boxes are compared in pixels of the n-th image of the file,
// counting images with detections and starting again after the last, with the fork's +1
// convention), resize_param (how the net's input was resized: WARP, FIT_LARGE_SIZE_AND_PAD;
// FIT_SMALL_SIZE without height_scale/width_scale; height and width positive). Errors: a
// detection or ground truth of the background class, non-finite values, ids or labels beyond an
// int, an unreadable or malformed name_size_file. No gradient.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "detection/output_box.h"
#include "layers/layer.h"

namespace dtrain {

class DetectionEvaluateLayer : public Layer {
 public:
  DetectionEvaluateLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "DetectionEvaluate"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  bool HasGradient() const override { return false; }
  bool AllowForceBackward(int bottom_index) const override { return false; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  // Never asked for a bottom diff (see the header); does nothing.
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {}

 private:
  Status ReadNameSizeFile(const std::string& path);

  int num_classes_ = 0;
  int background_label_id_ = 0;
  float overlap_threshold_ = 0.5f;
  bool evaluate_difficult_gt_ = true;
  std::vector<std::pair<int, int>> sizes_;  // (height, width) per image of name_size_file
  size_t count_ = 0;                        // the image of sizes_ the next one with detections is
  std::unique_ptr<detection::ResizeSettings> resize_;
};

}  // namespace dtrain
