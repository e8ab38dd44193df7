#include "data/annotated_transformer.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "data/photometric_distortion.h"
#include "data/resize_policy.h"
#include "detection/sampler.h"

namespace dtrain {
namespace {

const char kResizeField[] = "transform_param.resize_param";
// The largest max_expand_ratio: a 1 x 1 image expanded by it stays within 2^28 pixels.
constexpr float kMaxExpandRatio = 16384;

std::string Shape(int channels, int height, int width) {
  return std::to_string(channels) + "x" + std::to_string(height) + "x" + std::to_string(width);
}

// %g: "0.5", "1e+09", "nan".
std::string Number(float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

Status NotYet(const std::string& field) {
  return Unsupported("transform_param." + field + ": not supported yet by AnnotatedData");
}

// Whether the pixel buffer holds exactly channels x height x width values.
bool Consistent(const Image8& image) {
  return image.channels >= 0 && image.height >= 0 && image.width >= 0 &&
         image.pixels.size() == static_cast<size_t>(image.channels) *
                                    static_cast<size_t>(image.height) *
                                    static_cast<size_t>(image.width);
}

Status Inconsistent(const Image8& image) {
  return InvalidArgument("AnnotatedData's transform: the image holds " +
                         std::to_string(image.pixels.size()) + " values, not " +
                         Shape(image.channels, image.height, image.width));
}

// noise_param: Intel applies every effect it names whatever prob says.
Status CheckNoise(const NoiseParameter& noise) {
  const std::pair<bool, const char*> effects[] = {{noise.prob() != 0, "prob"},
                                                  {noise.hist_eq(), "hist_eq"},
                                                  {noise.inverse(), "inverse"},
                                                  {noise.decolorize(), "decolorize"},
                                                  {noise.gauss_blur(), "gauss_blur"},
                                                  {noise.jpeg() > 0, "jpeg"},
                                                  {noise.posterize(), "posterize"},
                                                  {noise.erode(), "erode"},
                                                  {noise.saltpepper(), "saltpepper"},
                                                  {noise.clahe(), "clahe"},
                                                  {noise.convert_to_hsv(), "convert_to_hsv"},
                                                  {noise.convert_to_lab(), "convert_to_lab"}};
  for (const auto& [set, name] : effects) {
    if (set) return NotYet(std::string("noise_param.") + name);
  }
  return Status::Ok();
}

}  // namespace

AnnotatedTransformer::AnnotatedTransformer(const TransformationParameter& param, Phase phase)
    : param_(param), phase_(phase) {}

Status AnnotatedTransformer::Init() {
  if (param_.has_mean_file()) {
    return Unsupported(
        "transform_param.mean_file: AnnotatedData does not read mean images (Intel Caffe's "
        "expansion reads one of the canvas's size); give mean_value");
  }
  if (param_.pad() > 0) return NotYet("pad");
  if (param_.crop_h() > 0) return NotYet("crop_h");
  if (param_.crop_w() > 0) return NotYet("crop_w");
  if (param_.flow()) return NotYet("flow");
  if (param_.has_random_resize_param()) return NotYet("random_resize_param");
  if (param_.has_random_aspect_ratio_param()) return NotYet("random_aspect_ratio_param");
  if (param_.has_noise_param()) DT_RETURN_IF_ERROR(CheckNoise(param_.noise_param()));
  if (!std::isfinite(param_.scale())) {
    return InvalidArgument("transform_param.scale must be finite");
  }
  for (float mean : param_.mean_value()) {
    if (!std::isfinite(mean)) return InvalidArgument("transform_param.mean_value must be finite");
  }
  if (static_cast<int64_t>(param_.crop_size()) * param_.crop_size() > kMaxAugmentedPixels) {
    return InvalidArgument("transform_param.crop_size " + std::to_string(param_.crop_size()) +
                           " makes more than 2^28 pixels");
  }
  if (param_.has_resize_param()) {
    DT_RETURN_IF_ERROR(ValidateResizePolicy(param_.resize_param(), kResizeField));
  }
  if (param_.has_distort_param()) {
    DT_RETURN_IF_ERROR(ValidateDistortion(param_.distort_param()));
  }
  if (param_.has_expand_param()) {
    const ExpansionParameter& expand = param_.expand_param();
    if (!std::isfinite(expand.prob())) {
      return InvalidArgument("transform_param.expand_param.prob must be finite");
    }
    const float ratio = expand.max_expand_ratio();
    if (!(ratio >= 1 && ratio <= kMaxExpandRatio)) {
      return InvalidArgument("transform_param.expand_param.max_expand_ratio " + Number(ratio) +
                             " must be in [1, 16384] (a larger canvas passes 2^28 pixels)");
    }
  }
  if (param_.has_emit_constraint() &&
      param_.emit_constraint().emit_type() == EmitConstraint::MIN_OVERLAP &&
      !std::isfinite(param_.emit_constraint().emit_overlap())) {
    return InvalidArgument("transform_param.emit_constraint.emit_overlap must be finite");
  }
  return Status::Ok();
}

std::vector<int> AnnotatedTransformer::OutputShape(int channels, int height, int width) const {
  int64_t h = height, w = width;
  if (param_.has_resize_param()) {
    const ImageSize size = ResizedSize(param_.resize_param(), height, width);
    h = size.height;
    w = size.width;
  }
  if (param_.crop_size() > 0) h = w = param_.crop_size();
  return {channels, static_cast<int>(std::min<int64_t>(h, INT_MAX)),
          static_cast<int>(std::min<int64_t>(w, INT_MAX))};
}

float AnnotatedTransformer::MeanValue(int channel) const {
  const int means = param_.mean_value_size();
  if (means == 0) return 0;
  if (means == 1) return param_.mean_value(0);
  return channel < means ? param_.mean_value(channel) : 0;
}

Status AnnotatedTransformer::Distort(Rng& rng, Image8* image) const {
  if (!distorts()) return Status::Ok();
  if (!Consistent(*image)) return Inconsistent(*image);
  if (image->channels != 3) {
    return InvalidArgument(
        "transform_param.distort_param needs 3-channel (B, G, R) images; this "
        "one is " +
        Shape(image->channels, image->height, image->width));
  }
  ApplyDistortion(param_.distort_param(), rng, image->pixels.data(),
                  static_cast<size_t>(image->height) * image->width);
  return Status::Ok();
}

void AnnotatedTransformer::Expand(Rng& rng, Image8* image, std::vector<AnnotatedBox>* boxes) const {
  if (!expands() || !Consistent(*image) || image->channels < 1 || image->height < 1 ||
      image->width < 1) {
    return;
  }
  const ExpansionParameter& expand = param_.expand_param();
  if (rng.Uniform(0.f, 1.f) > expand.prob()) return;
  const float max_ratio = expand.max_expand_ratio();
  if (std::fabs(max_ratio - 1.0) < 1e-2) return;
  const float ratio = rng.Uniform(1.f, max_ratio);
  const int old_h = image->height, old_w = image->width, cn = image->channels;
  const int64_t height = static_cast<int64_t>(static_cast<float>(old_h) * ratio);
  const int64_t width = static_cast<int64_t>(static_cast<float>(old_w) * ratio);
  if (height * width > kMaxAugmentedPixels) return;
  const float top = std::floor(rng.Uniform(0.f, static_cast<float>(height - old_h)));
  const float left = std::floor(rng.Uniform(0.f, static_cast<float>(width - old_w)));

  Image8 canvas;
  canvas.channels = cn;
  canvas.height = static_cast<int>(height);
  canvas.width = static_cast<int>(width);
  canvas.pixels.resize(static_cast<size_t>(height * width * cn));
  std::vector<uint8_t> fill(cn);
  for (int c = 0; c < cn; ++c) {
    fill[c] = static_cast<uint8_t>(std::clamp(std::nearbyint(MeanValue(c)), 0.f, 255.f));
  }
  for (size_t i = 0; i < canvas.pixels.size(); i += cn) {
    std::copy(fill.begin(), fill.end(), canvas.pixels.begin() + i);
  }
  const size_t row = static_cast<size_t>(old_w) * cn;
  for (int y = 0; y < old_h; ++y) {
    const uint8_t* src = image->pixels.data() + y * row;
    uint8_t* dst = canvas.pixels.data() +
                   ((static_cast<size_t>(top) + y) * canvas.width + static_cast<size_t>(left)) * cn;
    std::copy(src, src + row, dst);
  }
  detection::NormalizedBox placed;  // the canvas, in the old image's coordinates
  placed.xmin = -left / old_w;
  placed.ymin = -top / old_h;
  placed.xmax = (width - left) / old_w;
  placed.ymax = (height - top) / old_h;
  *image = std::move(canvas);
  // Without a resize, moving boxes cannot fail.
  (void)MoveBoxes(placed, /*resized=*/false, /*mirror=*/false, old_h, old_w, boxes);
}

void AnnotatedTransformer::Crop(const detection::NormalizedBox& crop, Image8* image,
                                std::vector<AnnotatedBox>* boxes) const {
  const int old_h = image->height, old_w = image->width, cn = image->channels;
  const detection::NormalizedBox clipped = detection::ClipBox(crop);
  const bool finite = std::isfinite(crop.xmin) && std::isfinite(crop.ymin) &&
                      std::isfinite(crop.xmax) && std::isfinite(crop.ymax);
  int left = 0, top = 0, width = 0, height = 0;
  if (finite && Consistent(*image)) {
    const detection::NormalizedBox scaled =
        detection::ScaleBox(clipped, static_cast<float>(old_h), static_cast<float>(old_w));
    left = static_cast<int>(scaled.xmin);
    top = static_cast<int>(scaled.ymin);
    width = std::min(static_cast<int>(scaled.xmax - scaled.xmin), old_w - left);
    height = std::min(static_cast<int>(scaled.ymax - scaled.ymin), old_h - top);
  }
  if (width < 1 || height < 1) {
    image->height = image->width = 0;
    image->pixels.clear();
    boxes->clear();
    return;
  }
  Image8 cropped;
  cropped.channels = cn;
  cropped.height = height;
  cropped.width = width;
  cropped.pixels.resize(static_cast<size_t>(height) * width * cn);
  const size_t row = static_cast<size_t>(width) * cn;
  for (int y = 0; y < height; ++y) {
    const uint8_t* src =
        image->pixels.data() + ((static_cast<size_t>(top) + y) * old_w + left) * cn;
    std::copy(src, src + row, cropped.pixels.data() + y * row);
  }
  *image = std::move(cropped);
  (void)MoveBoxes(clipped, /*resized=*/false, /*mirror=*/false, old_h, old_w, boxes);
}

Status AnnotatedTransformer::Transform(const Image8& image, Rng& rng, float* out,
                                       std::vector<AnnotatedBox>* boxes) const {
  const int cn = image.channels;
  if (!Consistent(image)) return Inconsistent(image);
  if (cn < 1 || image.height < 1 || image.width < 1) {
    return InvalidArgument("AnnotatedData's transform: the image is empty (" +
                           Shape(cn, image.height, image.width) + ")");
  }
  const int means = param_.mean_value_size();
  if (means > 1 && means != cn) {
    return InvalidArgument("transform_param has " + std::to_string(means) +
                           " mean_value entries; give 1 or one per channel (" + std::to_string(cn) +
                           ")");
  }
  if (param_.bgr2rgb() && cn != 3) {
    return InvalidArgument("transform_param.bgr2rgb needs 3-channel images; this one is " +
                           Shape(cn, image.height, image.width));
  }
  const bool mirror = param_.mirror() && rng.UniformInt(2) == 1;
  const Image8* source = &image;
  Image8 resized;
  if (param_.has_resize_param()) {
    const Interpolation interpolation = PickInterpolation(param_.resize_param(), rng);
    DT_RETURN_IF_ERROR(
        ApplyResizePolicy(param_.resize_param(), interpolation, image, &resized, kResizeField));
    source = &resized;
  }
  const int height = source->height, width = source->width;
  const int crop = static_cast<int>(param_.crop_size());
  int out_h = height, out_w = width, top = 0, left = 0;
  if (crop > 0) {
    if (height < crop || width < crop) {
      return InvalidArgument("transform_param.crop_size " + std::to_string(crop) +
                             " is larger than the " +
                             std::string(param_.has_resize_param() ? "resized " : "") + "image (" +
                             Shape(cn, height, width) + ")");
    }
    out_h = out_w = crop;
    if (phase_ == TRAIN) {
      top = static_cast<int>(rng.UniformInt(height - crop + 1));
      left = static_cast<int>(rng.UniformInt(width - crop + 1));
    } else {
      top = (height - crop) / 2;
      left = (width - crop) / 2;
    }
  }
  const float scale = param_.scale();
  const size_t plane = static_cast<size_t>(out_h) * out_w;
  for (int y = 0; y < out_h; ++y) {
    const uint8_t* src = source->pixels.data() +
                         ((static_cast<size_t>(top) + y) * width + left) * static_cast<size_t>(cn);
    for (int x = 0; x < out_w; ++x) {
      const int ox = mirror ? out_w - 1 - x : x;
      for (int c = 0; c < cn; ++c) {
        const int oc = param_.bgr2rgb() ? 2 - c : c;
        const float pixel = src[x * cn + c];
        out[oc * plane + static_cast<size_t>(y) * out_w + ox] =
            means > 0 ? (pixel - MeanValue(c)) * scale : pixel * scale;
      }
    }
  }
  detection::NormalizedBox window;
  window.xmin = static_cast<float>(left) / width;
  window.ymin = static_cast<float>(top) / height;
  window.xmax = static_cast<float>(left + out_w) / width;
  window.ymax = static_cast<float>(top + out_h) / height;
  return MoveBoxes(window, param_.has_resize_param(), mirror, image.height, image.width, boxes);
}

bool AnnotatedTransformer::MeetsEmitConstraint(const detection::NormalizedBox& window,
                                               const detection::NormalizedBox& box) const {
  const EmitConstraint& emit = param_.emit_constraint();
  if (emit.emit_type() == EmitConstraint::MIN_OVERLAP) {
    return detection::BoxCoverage(box, window) > emit.emit_overlap();
  }
  const float x = (box.xmin + box.xmax) / 2, y = (box.ymin + box.ymax) / 2;
  return x >= window.xmin && x <= window.xmax && y >= window.ymin && y <= window.ymax;
}

Status AnnotatedTransformer::MoveBoxes(const detection::NormalizedBox& window, bool resized,
                                       bool mirror, int old_height, int old_width,
                                       std::vector<AnnotatedBox>* boxes) const {
  std::vector<AnnotatedBox> kept;
  for (const AnnotatedBox& object : *boxes) {
    detection::NormalizedBox box = object.box;
    // The fork's clipping (std::max(0.f, NaN) is 0) would turn a NaN box into the whole image.
    if (!(std::isfinite(box.xmin) && std::isfinite(box.ymin) && std::isfinite(box.xmax) &&
          std::isfinite(box.ymax))) {
      continue;
    }
    if (resized) box = ResizeBoxByPolicy(param_.resize_param(), old_height, old_width, box);
    if (param_.has_emit_constraint() && !MeetsEmitConstraint(window, box)) continue;
    detection::NormalizedBox moved;
    if (!detection::ProjectBox(window, box, &moved)) continue;
    if (mirror) {
      const float xmin = moved.xmin;
      moved.xmin = 1 - moved.xmax;
      moved.xmax = 1 - xmin;
    }
    if (resized) {
      DT_RETURN_IF_ERROR(ExtrapolateBox(param_.resize_param(), old_height, old_width, window,
                                        &moved, kResizeField));
    }
    kept.push_back({moved, object.instance_id});
  }
  *boxes = std::move(kept);
  return Status::Ok();
}

}  // namespace dtrain
