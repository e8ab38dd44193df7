#include "detection/box.h"

#include <algorithm>

namespace dtrain::detection {

float BoxSize(const NormalizedBox& box, bool normalized) {
  if (box.xmax < box.xmin || box.ymax < box.ymin) return 0.f;
  const float width = box.xmax - box.xmin;
  const float height = box.ymax - box.ymin;
  return normalized ? width * height : (width + 1) * (height + 1);
}

NormalizedBox IntersectBoxes(const NormalizedBox& a, const NormalizedBox& b) {
  NormalizedBox out;
  if (b.xmin > a.xmax || b.xmax < a.xmin || b.ymin > a.ymax || b.ymax < a.ymin) return out;
  out.xmin = std::max(a.xmin, b.xmin);
  out.ymin = std::max(a.ymin, b.ymin);
  out.xmax = std::min(a.xmax, b.xmax);
  out.ymax = std::min(a.ymax, b.ymax);
  return out;
}

float JaccardOverlap(const NormalizedBox& a, const NormalizedBox& b, bool normalized) {
  const NormalizedBox inter = IntersectBoxes(a, b);
  const float pad = normalized ? 0.f : 1.f;
  const float width = inter.xmax - inter.xmin + pad;
  const float height = inter.ymax - inter.ymin + pad;
  if (!(width > 0 && height > 0)) return 0.f;
  const float inter_size = width * height;
  return inter_size / (BoxSize(a, normalized) + BoxSize(b, normalized) - inter_size);
}

NormalizedBox ClipBox(const NormalizedBox& box) { return ClipBox(box, 1.f, 1.f); }

NormalizedBox ClipBox(const NormalizedBox& box, float height, float width) {
  NormalizedBox out = box;
  out.xmin = std::max(std::min(box.xmin, width), 0.f);
  out.ymin = std::max(std::min(box.ymin, height), 0.f);
  out.xmax = std::max(std::min(box.xmax, width), 0.f);
  out.ymax = std::max(std::min(box.ymax, height), 0.f);
  return out;
}

NormalizedBox ScaleBox(const NormalizedBox& box, float height, float width) {
  NormalizedBox out = box;
  out.xmin = box.xmin * width;
  out.ymin = box.ymin * height;
  out.xmax = box.xmax * width;
  out.ymax = box.ymax * height;
  return out;
}

bool IsCrossBoundaryBox(const NormalizedBox& box) {
  return box.xmin < 0 || box.xmin > 1 || box.ymin < 0 || box.ymin > 1 || box.xmax < 0 ||
         box.xmax > 1 || box.ymax < 0 || box.ymax > 1;
}

bool ProjectBox(const NormalizedBox& source, const NormalizedBox& box, NormalizedBox* out) {
  if (box.xmin >= source.xmax || box.xmax <= source.xmin || box.ymin >= source.ymax ||
      box.ymax <= source.ymin) {
    return false;
  }
  const float width = source.xmax - source.xmin;
  const float height = source.ymax - source.ymin;
  NormalizedBox projected = box;
  projected.xmin = (box.xmin - source.xmin) / width;
  projected.ymin = (box.ymin - source.ymin) / height;
  projected.xmax = (box.xmax - source.xmin) / width;
  projected.ymax = (box.ymax - source.ymin) / height;
  *out = ClipBox(projected);
  return BoxSize(*out) > 0;
}

}  // namespace dtrain::detection
