#include "detection/output_box.h"

namespace dtrain::detection {

std::string ResizeProblem(const ResizeSettings& resize) {
  if (!(resize.height > 0)) return "resize_param.height must be positive";
  if (!(resize.width > 0)) return "resize_param.width must be positive";
  if (resize.mode == ResizeMode::kFitSmallSize && resize.height_scale != 0 &&
      resize.width_scale != 0) {
    return "resize_param.height_scale and width_scale with FIT_SMALL_SIZE are not implemented";
  }
  return "";
}

NormalizedBox OutputPixelBox(const NormalizedBox& box, int image_height, int image_width,
                             const ResizeSettings* resize) {
  NormalizedBox content = box;
  if (resize != nullptr && resize->mode == ResizeMode::kFitLargeSizeAndPad) {
    // The part of the net's input that holds the image, the rest being padding.
    const float input_aspect = resize->width / resize->height;
    const float aspect = static_cast<float>(image_width) / image_height;
    NormalizedBox source;
    if (aspect > input_aspect) {
      const float padding = (resize->height - resize->width / aspect) / 2;
      source.xmin = 0.f;
      source.ymin = padding / resize->height;
      source.xmax = 1.f;
      source.ymax = static_cast<float>(1. - padding / resize->height);
    } else {
      const float padding = (resize->width - resize->height * aspect) / 2;
      source.xmin = padding / resize->width;
      source.ymin = 0.f;
      source.xmax = static_cast<float>(1. - padding / resize->width);
      source.ymax = 1.f;
    }
    ProjectBox(source, box, &content);
  }
  return ScaleBox(ClipBox(content), static_cast<float>(image_height),
                  static_cast<float>(image_width));
}

}  // namespace dtrain::detection
