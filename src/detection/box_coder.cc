#include "detection/box_coder.h"

#include <cmath>

namespace dtrain::detection {
namespace {

float Width(const NormalizedBox& b) { return b.xmax - b.xmin; }
float Height(const NormalizedBox& b) { return b.ymax - b.ymin; }
// Centres are computed in double as the fork's "/ 2." does, then stored as float.
float CenterX(const NormalizedBox& b) { return static_cast<float>((b.xmin + b.xmax) / 2.); }
float CenterY(const NormalizedBox& b) { return static_cast<float>((b.ymin + b.ymax) / 2.); }

std::string Number(float v) { return std::to_string(v); }

}  // namespace

std::string PriorProblem(const Prior& prior, CodeType code) {
  if (code == CodeType::kCorner) return "";
  if (!(Width(prior.box) > 0) || !(Height(prior.box) > 0)) {
    return "a prior box of width " + Number(Width(prior.box)) + " and height " +
           Number(Height(prior.box)) + " (both must be positive to decode offsets relative to it)";
  }
  return "";
}

StatusOr<NormalizedBox> EncodeBox(const Prior& prior, CodeType code,
                                  bool variance_encoded_in_target, const NormalizedBox& box) {
  const std::string problem = PriorProblem(prior, code);
  if (!problem.empty()) return InvalidArgument(problem);
  const std::array<float, 4>& v = prior.variance;
  if (!variance_encoded_in_target && code != CodeType::kCenterSize) {
    for (float x : v) {
      if (!(x > 0))
        return InvalidArgument("a prior variance of " + Number(x) + " (must be positive)");
    }
  }
  const NormalizedBox& p = prior.box;
  NormalizedBox out;
  switch (code) {
    case CodeType::kCorner: {
      out.xmin = box.xmin - p.xmin;
      out.ymin = box.ymin - p.ymin;
      out.xmax = box.xmax - p.xmax;
      out.ymax = box.ymax - p.ymax;
      if (!variance_encoded_in_target) {
        out.xmin /= v[0], out.ymin /= v[1], out.xmax /= v[2], out.ymax /= v[3];
      }
      break;
    }
    case CodeType::kCenterSize: {
      const float pw = Width(p), ph = Height(p);
      const float bw = Width(box), bh = Height(box);
      if (!(bw > 0) || !(bh > 0)) {
        return InvalidArgument("a box of width " + Number(bw) + " and height " + Number(bh) +
                               " (CENTER_SIZE encodes only boxes of positive size)");
      }
      const float dx = (CenterX(box) - CenterX(p)) / pw;
      const float dy = (CenterY(box) - CenterY(p)) / ph;
      const double lw = std::log(static_cast<double>(bw / pw));
      const double lh = std::log(static_cast<double>(bh / ph));
      if (variance_encoded_in_target) {
        out.xmin = dx, out.ymin = dy;
        out.xmax = static_cast<float>(lw), out.ymax = static_cast<float>(lh);
      } else {
        out.xmin = dx / v[0], out.ymin = dy / v[1];
        out.xmax = static_cast<float>(lw / v[2]), out.ymax = static_cast<float>(lh / v[3]);
      }
      break;
    }
    case CodeType::kCornerSize: {
      const float pw = Width(p), ph = Height(p);
      out.xmin = (box.xmin - p.xmin) / pw;
      out.ymin = (box.ymin - p.ymin) / ph;
      out.xmax = (box.xmax - p.xmax) / pw;
      out.ymax = (box.ymax - p.ymax) / ph;
      if (!variance_encoded_in_target) {
        out.xmin /= v[0], out.ymin /= v[1], out.xmax /= v[2], out.ymax /= v[3];
      }
      break;
    }
  }
  return out;
}

NormalizedBox DecodeBox(const Prior& prior, CodeType code, bool variance_encoded_in_target,
                        const NormalizedBox& offsets, bool clip) {
  const NormalizedBox& p = prior.box;
  // With the variances in the targets every offset is used as it is.
  std::array<float, 4> v = prior.variance;
  if (variance_encoded_in_target) v = {1.f, 1.f, 1.f, 1.f};
  NormalizedBox out;
  switch (code) {
    case CodeType::kCorner:
      out.xmin = p.xmin + v[0] * offsets.xmin;
      out.ymin = p.ymin + v[1] * offsets.ymin;
      out.xmax = p.xmax + v[2] * offsets.xmax;
      out.ymax = p.ymax + v[3] * offsets.ymax;
      break;
    case CodeType::kCenterSize: {
      const float pw = Width(p), ph = Height(p);
      const float cx = v[0] * offsets.xmin * pw + CenterX(p);
      const float cy = v[1] * offsets.ymin * ph + CenterY(p);
      // exp in double, as the fork's exp(float) resolves to ::exp(double).
      const float w = static_cast<float>(std::exp(static_cast<double>(v[2] * offsets.xmax)) * pw);
      const float h = static_cast<float>(std::exp(static_cast<double>(v[3] * offsets.ymax)) * ph);
      out.xmin = static_cast<float>(cx - w / 2.);
      out.ymin = static_cast<float>(cy - h / 2.);
      out.xmax = static_cast<float>(cx + w / 2.);
      out.ymax = static_cast<float>(cy + h / 2.);
      break;
    }
    case CodeType::kCornerSize: {
      const float pw = Width(p), ph = Height(p);
      out.xmin = p.xmin + v[0] * offsets.xmin * pw;
      out.ymin = p.ymin + v[1] * offsets.ymin * ph;
      out.xmax = p.xmax + v[2] * offsets.xmax * pw;
      out.ymax = p.ymax + v[3] * offsets.ymax * ph;
      break;
    }
  }
  return clip ? ClipBox(out) : out;
}

}  // namespace dtrain::detection
