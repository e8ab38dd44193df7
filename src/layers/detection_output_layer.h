// DetectionOutputLayer: SSD's detections from its box offsets and class scores (the SSD fork's
// DetectionOutput, as Intel Caffe carries it): each prior's offsets decoded into a box, per-class
// non-maximum suppression, then the keep_top_k best over all classes of each image.
//
// Bottoms: loc (N, P * 4 * L) with L = 1 when share_location, else num_classes (per image, per
// prior, per location class: 4 offsets); conf (N, P * num_classes) (per prior, per class: a score,
// e.g. a softmax output); priors (1, 2, P * 4) as PriorBox writes them (the boxes, then their
// variances); an optional 4th bottom (the images, which the fork reads only to draw detections)
// is ignored. Only the count per item of loc and conf is compared, so (N, P, 4) works as well.
// Top: (1, 1, D, 7), one row per kept detection: [image, label, score, xmin, ymin, xmax, ymax] in
// normalised coordinates, neither clipped nor scaled, ordered by image, then label, then
// descending score; D is reshaped every forward. When no image keeps anything, the top is
// (1, 1, N, 7) with one row [n, -1, -1, -1, -1, -1, -1] per image, as in the fork.
//
// Parameters (detection_output_param): num_classes (required, >= 1), share_location (default
// true), background_label_id (default 0; that class is skipped; -1: none, refused with
// share_location as the fork stops on it), code_type (CORNER, CENTER_SIZE, CORNER_SIZE),
// variance_encoded_in_target, confidence_threshold (a score must be above it; unset: -FLT_MAX),
// nms_param (nms_threshold >= 0, top_k, eta in (0, 1]), keep_top_k (-1: all; else at most that
// many detections per image, the highest scores over all classes; equal scores keep label and
// NMS order). Refused by name: visualize (the fork opens windows with OpenCV).
//
// Result files (save_output_param, detection/result_files.h has the formats): with
// output_directory set (created if missing; nothing in it is removed, unlike the fork, which
// empties it), label_map_file and name_size_file are required (the fork silently saves nothing
// without them): after every num_test_image images (default: every image of name_size_file, in
// its order) the detections of those images are written in output_format (VOC, COCO, ILSVRC), the
// boxes in pixels of each image's size from name_size_file (through save_output_param's
// resize_param where the net's input was resized FIT_LARGE_SIZE_AND_PAD). Every class but the
// background must have a name in the label map. Saving needs the whole test set in one process:
// in a job of several ranks (SetShard with count > 1) Forward refuses it. Non-finite values in any
// of the three bottoms and, for CENTER_SIZE and CORNER_SIZE, priors without a positive width and
// height are errors naming the bottom and position. No gradient (the fork's Backward is not
// implemented): a net in which a bottom would need one is an error when built.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "detection/box_coder.h"
#include "detection/nms.h"
#include "detection/output_box.h"
#include "detection/result_files.h"
#include "layers/layer.h"
#include "layers/sharded_source.h"

namespace dtrain {

// A ShardedSource only to learn the job's rank count (it reads no records).
class DetectionOutputLayer : public Layer, public ShardedSource {
 public:
  DetectionOutputLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "DetectionOutput"; }
  int MinBottomBlobs() const override { return 3; }
  int MaxBottomBlobs() const override { return 4; }
  int ExactNumTopBlobs() const override { return 1; }
  bool HasGradient() const override { return false; }
  bool AllowForceBackward(int bottom_index) const override { return false; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;
  void SetShard(int index, int count) override { shard_count_ = count; }

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  // Never asked for a bottom diff (see the header); does nothing.
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {}

 private:
  // An error naming the first non-finite value of bottom `index`, or OK.
  Status CheckFinite(const Tensor& t, const char* name) const;
  // save_output_param: checks it and reads its files (saving_ stays null without it).
  Status SetUpSaving();
  // Adds image n's rows (7 values each) to the saved detections; writes the files after every
  // num_test_image images.
  Status SaveImage(const float* rows, int count);

  // The result files being gathered, when save_output_param asks for them.
  struct Saving {
    detection::ResultFiles files;
    std::vector<detection::ImageNameSize> images;  // name_size_file
    int images_per_file = 0;                       // num_test_image
    int next_image = 0;                            // of `images`, for the next image seen
    std::unique_ptr<detection::ResizeSettings> resize;
    std::vector<detection::SavedDetection> detections;
  };
  std::unique_ptr<Saving> saving_;
  int shard_count_ = 1;

  int num_classes_ = 0;
  bool share_location_ = true;
  int num_loc_classes_ = 1;
  int background_label_id_ = 0;
  detection::CodeType code_type_ = detection::CodeType::kCorner;
  bool variance_encoded_in_target_ = false;
  int keep_top_k_ = -1;
  detection::NmsSettings nms_;
  int num_priors_ = 0;
};

}  // namespace dtrain
