// AnnotatedTransformer: the SSD fork's augmentations of an image with its boxes, as Intel Caffe's
// AnnotatedData layer applies them (its data_transformer.cpp: DistortImage, ExpandImage,
// CropImage, Transform(AnnotatedDatum) with TransformAnnotation). The layer calls, per image:
//   Distort (distort_param), Expand (expand_param), Crop (to one of the batch samplers' boxes,
//   when they drew any), Transform (into the net's input, float CHW).
// Boxes are normalised to the current image ([0, 1]); each step moves them with the pixels and
// drops those that leave it.
//
// Distort: photometric_distortion.h (3-channel images).
// Expand: u = Uniform(0, 1); when u <= expand_param.prob and |max_expand_ratio - 1| >= 1e-2, a
//   ratio r = Uniform(1, max_expand_ratio) makes a canvas of int(H r) x int(W r) filled with
//   mean_value (rounded to nearest, saturated; 0 without), and the image goes at
//   (floor(Uniform(0, H' - H)), floor(Uniform(0, W' - W))) (top first). The boxes are projected
//   into the canvas (the canvas is the box [-left / W, -top / H, (W' - left) / W,
//   (H' - top) / H] of the old image), after emit_constraint against that box as the fork does.
// Crop: the crop box clipped to [0, 1], scaled to pixels; the pixels from (int(xmin W),
//   int(ymin H)), int(xmax W - xmin W) wide and int(ymax H - ymin H) high (float arithmetic, the
//   fork's). Boxes: kept by emit_constraint against the clipped crop box (normalised, not
//   snapped to pixels), projected into it and clipped; those with no area left dropped.
// Transform, in this order: the mirror coin (mirror: UniformInt(2) == 1); resize_param
//   (resize_policy.h; its interpolation draw); with crop_size, a crop_size x crop_size window of
//   the resized image at (UniformInt(H - crop + 1), UniformInt(W - crop + 1)) in TRAIN (top
//   first), centred ((H - crop) / 2, (W - crop) / 2) in TEST; out[c][y][x] = (pixel - mean_value
//   [c]) * scale (pixel * scale without mean_value), x mirrored when the coin says so, channels 0
//   and 2 swapped with bgr2rgb. Boxes, the fork's TransformAnnotation: each box mapped by the
//   resize policy (from the input image's size), dropped unless it meets emit_constraint
//   against the window (normalised to the resized image), projected into the window and
//   clipped (dropped with no area left), mirrored (x -> 1 - x), extrapolated (resize_policy.h).
// emit_constraint: CENTER keeps a box whose centre lies in the crop (edges included);
//   MIN_OVERLAP one whose share inside the crop is more than emit_overlap. Without it every box
//   that overlaps the crop stays.
//
// Random draws come from the caller's Rng in the order given above; Intel's streams cannot be
// reproduced (its mirror coin and crop offsets are precomputed, its other draws come from
// Caffe's global generator).
//
// Deviations from Intel Caffe: its Transform computes the crop window in the resized image but
// takes the pixels from the image before resize_param (a bug: boxes and pixels disagree); here
// both come from the resized image. Its distorted, expanded and cropped images pass through JPEG
// encoding (lossy) between the steps; here the pixels pass unchanged. mean_file, pad, crop_h,
// crop_w, flow, noise_param with prob > 0, random_resize_param and random_aspect_ratio_param are
// refused by Init (Intel's AnnotatedData ignores bgr2rgb; here it is applied). Where Intel would
// abort (a crop larger than the resized image, a 1-channel image with distort_param), Transform
// and Distort return an error naming the field. A crop box that is not finite or covers no whole
// pixel leaves an empty image (no boxes), which Transform refuses; an object box with a
// coordinate that is not finite is dropped by every step (the fork's clipping, std::max(0.f,
// NaN) == 0, would make it the whole image); Expand skips a canvas over
// 2^28 pixels (kMaxAugmentedPixels) and leaves image and boxes as they were.
//
// Thread-safety: every method is const; several threads may use one transformer, each with its
// own Rng.
#pragma once

#include <vector>

#include "core/rng.h"
#include "core/status.h"
#include "data/image_resize.h"
#include "detection/box.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

// One object of an AnnotatedDatum: box.label is its group_label, box.difficult its flag.
struct AnnotatedBox {
  detection::NormalizedBox box;
  int instance_id = 0;
};

class AnnotatedTransformer {
 public:
  AnnotatedTransformer(const TransformationParameter& param, Phase phase);

  // Validates every field; errors name it ("transform_param.resize_param.height must be
  // positive"). Loads nothing.
  Status Init();

  // {C, H, W} of Transform's output for an input of that shape: resize_param's size (for
  // FIT_SMALL_SIZE, the size it gives this image), then crop_size.
  std::vector<int> OutputShape(int channels, int height, int width) const;

  bool distorts() const { return param_.has_distort_param(); }
  bool expands() const { return param_.has_expand_param(); }

  // distort_param on a 3-channel image; an error for any other channel count.
  Status Distort(Rng& rng, Image8* image) const;

  // expand_param (see the file comment); nothing without it.
  void Expand(Rng& rng, Image8* image, std::vector<AnnotatedBox>* boxes) const;

  // Crops to `crop` (normalised, as a batch sampler drew it), moving the boxes.
  void Crop(const detection::NormalizedBox& crop, Image8* image,
            std::vector<AnnotatedBox>* boxes) const;

  // The final transform into `out` (OutputShape(...) values, CHW float), boxes updated and
  // those that fall out removed. Errors: an empty image, a mean_value count other than 1 or the
  // channel count, bgr2rgb on other than 3 channels, a crop_size larger than the resized image,
  // the resize policy's and ExtrapolateBox's.
  Status Transform(const Image8& image, Rng& rng, float* out,
                   std::vector<AnnotatedBox>* boxes) const;

 private:
  // The fork's TransformAnnotation: boxes of an image of old_height x old_width into `window`.
  Status MoveBoxes(const detection::NormalizedBox& window, bool resized, bool mirror,
                   int old_height, int old_width, std::vector<AnnotatedBox>* boxes) const;
  bool MeetsEmitConstraint(const detection::NormalizedBox& window,
                           const detection::NormalizedBox& box) const;
  float MeanValue(int channel) const;

  TransformationParameter param_;
  Phase phase_;
};

}  // namespace dtrain
