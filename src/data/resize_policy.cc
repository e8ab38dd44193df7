#include "data/resize_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace dtrain {
namespace {

std::string Size(int64_t height, int64_t width) {
  return std::to_string(height) + "x" + std::to_string(width);
}

// %g: "4", "2.5".
std::string Number(float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

// A float size, truncated, kept finite: values past 2^62 stand for "too large".
int64_t Truncated(float value) {
  if (!(value < 4.6e18f)) return int64_t{1} << 62;
  return static_cast<int64_t>(std::floor(value));
}

// OpenCV's borderInterpolate for BORDER_REFLECT_101 (reflected until inside).
int Reflect101(int p, int size) {
  if (size == 1) return 0;
  while (p < 0 || p >= size) p = p < 0 ? -p : 2 * (size - 1) - p;
  return p;
}

}  // namespace

Status ValidateResizePolicy(const ResizeParameter& resize, const std::string& field) {
  if (resize.height() == 0) return InvalidArgument(field + ".height must be positive");
  if (resize.width() == 0) return InvalidArgument(field + ".width must be positive");
  if (static_cast<int64_t>(resize.height()) * resize.width() > kMaxAugmentedPixels) {
    return InvalidArgument(field + ": " + Size(resize.height(), resize.width()) +
                           " is more than 2^28 pixels");
  }
  for (float value : resize.pad_value()) {
    if (!std::isfinite(value)) return InvalidArgument(field + ".pad_value must be finite");
  }
  return Status::Ok();
}

Interpolation PickInterpolation(const ResizeParameter& resize, Rng& rng) {
  const int modes = resize.interp_mode_size();
  if (modes == 0) return Interpolation::kLinear;  // OpenCV's default, as the fork's
  const int mode = resize.interp_mode(modes == 1 ? 0 : static_cast<int>(rng.UniformInt(modes)));
  switch (mode) {
    case ResizeParameter::AREA:
      return Interpolation::kArea;
    case ResizeParameter::NEAREST:
      return Interpolation::kNearest;
    case ResizeParameter::CUBIC:
      return Interpolation::kCubic;
    case ResizeParameter::LANCZOS4:
      return Interpolation::kLanczos4;
    default:
      return Interpolation::kLinear;
  }
}

ImageSize ResizedSize(const ResizeParameter& resize, int height, int width) {
  ImageSize size{resize.height(), resize.width()};
  if (resize.resize_mode() != ResizeParameter::FIT_SMALL_SIZE) return size;
  const float aspect = static_cast<float>(width) / static_cast<float>(height);
  const float new_aspect = static_cast<float>(resize.width()) / static_cast<float>(resize.height());
  if (aspect < new_aspect) {
    size.height = Truncated(static_cast<float>(resize.width()) / aspect);
  } else {
    size.width = Truncated(aspect * static_cast<float>(resize.height()));
  }
  return size;
}

Status ApplyResizePolicy(const ResizeParameter& resize, Interpolation interpolation,
                         const Image8& in, Image8* out, const std::string& field) {
  const int cn = in.channels;
  // The size the image itself is resized to, and where it sits in the output.
  int64_t content_h = 0, content_w = 0, out_h = 0, out_w = 0;
  if (resize.resize_mode() == ResizeParameter::FIT_LARGE_SIZE_AND_PAD) {
    out_h = resize.height();
    out_w = resize.width();
    const float aspect = static_cast<float>(in.width) / static_cast<float>(in.height);
    const float new_aspect = static_cast<float>(out_w) / static_cast<float>(out_h);
    content_h = out_h;
    content_w = out_w;
    if (aspect > new_aspect) {
      content_h = std::min(out_h, Truncated(static_cast<float>(out_w) / aspect));
    } else {
      content_w = std::min(out_w, Truncated(aspect * static_cast<float>(out_h)));
    }
  } else {
    const ImageSize size = ResizedSize(resize, in.height, in.width);
    content_h = out_h = size.height;
    content_w = out_w = size.width;
  }
  const std::string shape = Size(in.height, in.width);
  if (content_h < 1 || content_w < 1) {
    return InvalidArgument(field + ": " + ResizeParameter::Resize_mode_Name(resize.resize_mode()) +
                           " would resize the " + shape + " image to " +
                           Size(content_h, content_w));
  }
  if (out_h > kMaxAugmentedPixels / out_w) {
    return InvalidArgument(field + ": " + ResizeParameter::Resize_mode_Name(resize.resize_mode()) +
                           " would resize the " + shape + " image to " + Size(out_h, out_w) +
                           ", more than 2^28 pixels");
  }
  const int values = resize.pad_value_size();
  if (values > 1 && values != cn) {
    return InvalidArgument(field + " has " + std::to_string(values) +
                           " pad_value entries; give 1 or one per channel (" + std::to_string(cn) +
                           ")");
  }
  std::vector<uint8_t> content(static_cast<size_t>(content_h * content_w * cn));
  ResizeImage(in.view(), static_cast<int>(content_h), static_cast<int>(content_w), interpolation,
              content.data());
  out->channels = cn;
  out->height = static_cast<int>(out_h);
  out->width = static_cast<int>(out_w);
  if (content_h == out_h && content_w == out_w) {
    out->pixels = std::move(content);
    return Status::Ok();
  }
  out->pixels.assign(static_cast<size_t>(out_h * out_w * cn), 0);
  const int top = static_cast<int>((out_h - content_h) / 2);
  const int left = static_cast<int>((out_w - content_w) / 2);
  // OpenCV's Scalar holds three values here (the fork builds it from the first three).
  std::vector<uint8_t> fill(cn, 0);
  for (int c = 0; c < std::min(cn, 3); ++c) {
    if (values == 0) break;
    const double value = resize.pad_value(values == 1 ? 0 : c);
    fill[c] = static_cast<uint8_t>(std::clamp<double>(std::nearbyint(value), 0, 255));
  }
  const int ch = static_cast<int>(content_h), cw = static_cast<int>(content_w);
  for (int y = 0; y < out->height; ++y) {
    for (int x = 0; x < out->width; ++x) {
      int sy = y - top, sx = x - left;
      uint8_t* dst = out->pixels.data() + (static_cast<size_t>(y) * out->width + x) * cn;
      const bool inside = sy >= 0 && sy < ch && sx >= 0 && sx < cw;
      if (!inside) {
        switch (resize.pad_mode()) {
          case ResizeParameter::MIRRORED:
            sy = Reflect101(sy, ch);
            sx = Reflect101(sx, cw);
            break;
          case ResizeParameter::REPEAT_NEAREST:
            sy = std::clamp(sy, 0, ch - 1);
            sx = std::clamp(sx, 0, cw - 1);
            break;
          default:  // CONSTANT
            std::copy(fill.begin(), fill.end(), dst);
            continue;
        }
      }
      const uint8_t* src = content.data() + (static_cast<size_t>(sy) * cw + sx) * cn;
      std::copy(src, src + cn, dst);
    }
  }
  return Status::Ok();
}

detection::NormalizedBox ResizeBoxByPolicy(const ResizeParameter& resize, int old_height,
                                           int old_width, detection::NormalizedBox box) {
  float new_h = static_cast<float>(resize.height());
  float new_w = static_cast<float>(resize.width());
  const float old_h = static_cast<float>(old_height), old_w = static_cast<float>(old_width);
  const float aspect = old_w / old_h;
  const float new_aspect = new_w / new_h;
  float xmin = box.xmin * old_w, ymin = box.ymin * old_h;
  float xmax = box.xmax * old_w, ymax = box.ymax * old_h;
  // Scaled to `to` pixels along an axis of `from`, clipped to [0, to].
  auto low = [](float v, float to, float from) { return std::max(0.f, v * to / from); };
  auto high = [](float v, float to, float from) { return std::min(to, v * to / from); };
  if (resize.resize_mode() == ResizeParameter::FIT_LARGE_SIZE_AND_PAD) {
    if (aspect > new_aspect) {
      const float padding = (new_h - new_w / aspect) / 2;
      xmin = low(xmin, new_w, old_w);
      xmax = high(xmax, new_w, old_w);
      ymin = padding + std::max(0.f, ymin * (new_h - 2 * padding) / old_h);
      ymax = padding + std::min(new_h, ymax * (new_h - 2 * padding) / old_h);
    } else {
      const float padding = (new_w - aspect * new_h) / 2;
      xmin = padding + std::max(0.f, xmin * (new_w - 2 * padding) / old_w);
      xmax = padding + std::min(new_w, xmax * (new_w - 2 * padding) / old_w);
      ymin = low(ymin, new_h, old_h);
      ymax = high(ymax, new_h, old_h);
    }
  } else {
    if (resize.resize_mode() == ResizeParameter::FIT_SMALL_SIZE) {
      if (aspect < new_aspect) {
        new_h = new_w / aspect;
      } else {
        new_w = aspect * new_h;
      }
    }
    xmin = low(xmin, new_w, old_w);
    xmax = high(xmax, new_w, old_w);
    ymin = low(ymin, new_h, old_h);
    ymax = high(ymax, new_h, old_h);
  }
  box.xmin = xmin / new_w;
  box.ymin = ymin / new_h;
  box.xmax = xmax / new_w;
  box.ymax = ymax / new_h;
  return box;
}

Status ExtrapolateBox(const ResizeParameter& resize, int old_height, int old_width,
                      const detection::NormalizedBox& crop, detection::NormalizedBox* box,
                      const std::string& field) {
  const float height_scale = static_cast<float>(resize.height_scale());
  const float width_scale = static_cast<float>(resize.width_scale());
  if (!(height_scale > 0 && width_scale > 0 &&
        resize.resize_mode() == ResizeParameter::FIT_SMALL_SIZE)) {
    return Status::Ok();
  }
  const float aspect = static_cast<float>(old_width) / static_cast<float>(old_height);
  float resized_h = static_cast<float>(resize.height());
  float resized_w = static_cast<float>(resize.width());
  if (aspect < resized_w / resized_h) {
    resized_h = resized_w / aspect;
  } else {
    resized_w = resized_h * aspect;
  }
  const float crop_h = resized_h * (crop.ymax - crop.ymin);
  const float crop_w = resized_w * (crop.xmax - crop.xmin);
  if (!(crop_w >= width_scale)) {
    return InvalidArgument(field + ".width_scale " + std::to_string(resize.width_scale()) +
                           " is more than the crop's width in the resized image (" +
                           Number(crop_w) + ")");
  }
  if (!(crop_h >= height_scale)) {
    return InvalidArgument(field + ".height_scale " + std::to_string(resize.height_scale()) +
                           " is more than the crop's height in the resized image (" +
                           Number(crop_h) + ")");
  }
  box->xmin = box->xmin * crop_w / width_scale;
  box->xmax = box->xmax * crop_w / width_scale;
  box->ymin = box->ymin * crop_h / height_scale;
  box->ymax = box->ymax * crop_h / height_scale;
  return Status::Ok();
}

}  // namespace dtrain
