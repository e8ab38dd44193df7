#include "data/random_resize.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "core/machine_memory.h"
#include "data/resize_policy.h"

namespace dtrain {
namespace {

const char kRandomResize[] = "transform_param.random_resize_param";
const char kRandomAspect[] = "transform_param.random_aspect_ratio_param";

std::string Number(float value) {
  std::string text = std::to_string(value);
  while (text.size() > 1 && text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

// Refuses the resize modes other than WARP (the only one Intel's random resizes make sense with:
// they set its size).
Status CheckResizeParam(const ResizeParameter& resize, const std::string& field) {
  if (resize.resize_mode() != ResizeParameter::WARP) {
    return Unsupported(field + ".resize_mode " +
                       ResizeParameter::Resize_mode_Name(resize.resize_mode()) +
                       ": dtrain resizes as Intel Caffe's WARP only (the size is the random "
                       "resize's own)");
  }
  return Status::Ok();
}

// The whole image with its shorter side made `shorter` (Intel's ResizeImagePerShorterSize).
StatusOr<ResizePlan> ShorterSideTo(int64_t shorter, int channels, int height, int width,
                                   const char* field) {
  ResizePlan plan;
  plan.height = height;
  plan.width = width;
  // Intel's float arithmetic: float(long) / short * shorter, truncated.
  const float longer = height < width
                           ? static_cast<float>(width) / height * static_cast<float>(shorter)
                           : static_cast<float>(height) / width * static_cast<float>(shorter);
  const double bytes = static_cast<double>(channels) * static_cast<double>(shorter) * longer;
  if (longer > static_cast<float>(INT_MAX / 2) || shorter > INT_MAX ||
      bytes > static_cast<double>(MachineMemoryBytes())) {
    return InvalidArgument(std::string(field) + ": the image (" + std::to_string(channels) + "x" +
                           std::to_string(height) + "x" + std::to_string(width) +
                           ") resized to a shorter side of " + std::to_string(shorter) +
                           " would take " + ByteSize(bytes) +
                           ", more than this machine's memory (" +
                           ByteSize(static_cast<double>(MachineMemoryBytes())) + ")");
  }
  const int other = static_cast<int>(longer);
  plan.out_height = height < width ? static_cast<int>(shorter) : other;
  plan.out_width = height < width ? other : static_cast<int>(shorter);
  return plan;
}

// Intel's RandRatio: a multiple of 0.001 from lo, float arithmetic.
float RandRatio(float lo, float hi, Rng& rng) {
  const int steps = static_cast<int>((hi - lo) * 1000 + 1);
  return (static_cast<float>(rng.UniformInt(static_cast<uint32_t>(steps))) + lo * 1000) / 1000;
}

bool InUnitInterval(float value) { return value > 0 && value <= 1; }  // false for NaN

}  // namespace

bool ResizesImages(const TransformationParameter& transform) {
  return transform.has_random_resize_param() || transform.has_random_aspect_ratio_param();
}

Status CheckResizeFields(const TransformationParameter& transform) {
  const int64_t crop = transform.crop_size();
  const int64_t pad = transform.pad();
  if (pad > 0) {
    if (transform.has_mean_file()) {
      return Unsupported(
          "transform_param.pad with mean_file: Intel Caffe reads the mean image shifted by pad "
          "there (and past its end); give mean_value instead");
    }
    if (crop + 2 * pad > INT_MAX) {
      return InvalidArgument("transform_param.pad " + std::to_string(pad) +
                             " makes an output side of " + std::to_string(crop + 2 * pad) +
                             ", more than a dimension may be (2147483647)");
    }
  }
  if (transform.has_random_resize_param() && transform.has_random_aspect_ratio_param()) {
    return Unsupported(std::string(kRandomAspect) +
                       " with random_resize_param: Intel Caffe applies only random_resize_param "
                       "when both are given; keep one");
  }
  if (transform.has_random_resize_param()) {
    const RandomResizeParameter& r = transform.random_resize_param();
    if (crop == 0) {
      return InvalidArgument(std::string(kRandomResize) +
                             " needs crop_size: the resized images differ in size, and Intel "
                             "Caffe crops every one to crop_size");
    }
    if (r.min_size() > 0 && r.max_size() > 0 && r.min_size() > r.max_size()) {
      return InvalidArgument(std::string(kRandomResize) + ": min_size " +
                             std::to_string(r.min_size()) + " is more than max_size " +
                             std::to_string(r.max_size()));
    }
    for (const auto& [name, size] :
         {std::pair<const char*, uint32_t>{"min_size", r.min_size()}, {"max_size", r.max_size()}}) {
      if (size > 0 && size < crop) {
        return InvalidArgument(std::string(kRandomResize) + "." + name + " " +
                               std::to_string(size) + " is less than crop_size " +
                               std::to_string(crop) +
                               ": an image resized to that shorter side cannot be cropped");
      }
    }
    // The smallest image the largest size makes is square.
    const double largest = std::max(r.min_size(), r.max_size());
    if (largest * largest > static_cast<double>(MachineMemoryBytes())) {
      return InvalidArgument(std::string(kRandomResize) +
                             ": an image resized to a shorter side of " +
                             std::to_string(static_cast<int64_t>(largest)) + " takes at least " +
                             ByteSize(largest * largest) + ", more than this machine's memory (" +
                             ByteSize(static_cast<double>(MachineMemoryBytes())) + ")");
    }
    DT_RETURN_IF_ERROR(
        CheckResizeParam(r.resize_param(), std::string(kRandomResize) + ".resize_param"));
  }
  if (transform.has_random_aspect_ratio_param()) {
    const RandomAspectRatioParameter& a = transform.random_aspect_ratio_param();
    if (crop == 0) {
      return InvalidArgument(std::string(kRandomAspect) +
                             " needs crop_size: Intel Caffe resizes every crop it draws to "
                             "crop_size x crop_size");
    }
    for (const auto& [name, ratio] :
         {std::pair<const char*, float>{"min_area_ratio", a.min_area_ratio()},
          {"max_area_ratio", a.max_area_ratio()},
          {"aspect_ratio_change", a.aspect_ratio_change()}}) {
      if (!InUnitInterval(ratio)) {
        return InvalidArgument(std::string(kRandomAspect) + "." + name + " " + Number(ratio) +
                               " is outside (0, 1]");
      }
    }
    if (a.min_area_ratio() > a.max_area_ratio()) {
      return InvalidArgument(std::string(kRandomAspect) + ": min_area_ratio " +
                             Number(a.min_area_ratio()) + " is more than max_area_ratio " +
                             Number(a.max_area_ratio()));
    }
    DT_RETURN_IF_ERROR(
        CheckResizeParam(a.resize_param(), std::string(kRandomAspect) + ".resize_param"));
  }
  return Status::Ok();
}

StatusOr<ResizePlan> DrawResize(const TransformationParameter& transform, int channels, int height,
                                int width, Rng& rng) {
  if (transform.has_random_resize_param()) {
    const RandomResizeParameter& r = transform.random_resize_param();
    const int64_t lo = r.min_size() > 0 ? r.min_size() : std::min(height, width);
    const int64_t hi = r.max_size() > 0 ? r.max_size() : std::max(height, width);
    if (lo > hi) {
      return InvalidArgument(
          std::string(kRandomResize) + ": for this " + std::to_string(height) + "x" +
          std::to_string(width) + " image, min_size " +
          (r.min_size() > 0 ? std::to_string(lo)
                            : "0 (its shorter side, " + std::to_string(lo) + ")") +
          " is more than max_size " +
          (r.max_size() > 0 ? std::to_string(hi)
                            : "0 (its longer side, " + std::to_string(hi) + ")"));
    }
    const int64_t shorter = lo + rng.UniformInt(static_cast<uint32_t>(hi - lo + 1));
    DT_ASSIGN_OR_RETURN(ResizePlan plan,
                        ShorterSideTo(shorter, channels, height, width, kRandomResize));
    plan.interpolation = PickInterpolation(r.resize_param(), rng);
    return plan;
  }
  const RandomAspectRatioParameter& a = transform.random_aspect_ratio_param();
  const int crop = static_cast<int>(transform.crop_size());
  const float area = static_cast<float>(static_cast<int64_t>(height) * width);
  for (uint32_t attempt = 0; attempt < a.max_attempt(); ++attempt) {
    const float area_ratio = RandRatio(a.min_area_ratio(), a.max_area_ratio(), rng);
    const float change = RandRatio(a.aspect_ratio_change(), 1 / a.aspect_ratio_change(), rng);
    const double side = std::sqrt(static_cast<double>(area_ratio * area));
    int box_height = static_cast<int>(side * change);
    int box_width = static_cast<int>(side / change);
    if (RandRatio(0, 1, rng) < 0.5f) std::swap(box_height, box_width);
    if (box_height > height || box_width > width || box_height == 0 || box_width == 0) continue;
    ResizePlan plan;
    plan.height = box_height;
    plan.width = box_width;
    plan.y = static_cast<int>(rng.UniformInt(static_cast<uint32_t>(height - box_height + 1)));
    plan.x = static_cast<int>(rng.UniformInt(static_cast<uint32_t>(width - box_width + 1)));
    plan.out_height = plan.out_width = crop;
    plan.interpolation = PickInterpolation(a.resize_param(), rng);
    return plan;
  }
  DT_ASSIGN_OR_RETURN(ResizePlan plan, ShorterSideTo(crop, channels, height, width, kRandomAspect));
  plan.interpolation = PickInterpolation(a.resize_param(), rng);
  return plan;
}

}  // namespace dtrain
