// Encoding of boxes as offsets from prior (default) boxes and back: the SSD fork's EncodeBBox and
// DecodeBBox for each PriorBoxParameter.CodeType.
//
//   CORNER       offsets of the four corners: (x - prior x) [/ variance]
//   CENTER_SIZE  centre offsets over the prior's width and height, and log of the size ratios:
//                ((cx - prior cx) / prior w [/ v0], ..., log(w / prior w) [/ v2], ...)
//   CORNER_SIZE  corner offsets over the prior's width and height: (x - prior x) / prior w [/ v]
//
// With variance_encoded_in_target the variances are already in the targets and not applied;
// otherwise each offset is divided by (encode) or multiplied by (decode) its prior's variance.
// Pure functions on values; thread-safe.
#pragma once

#include <array>
#include <string>

#include "core/status.h"
#include "detection/box.h"

namespace dtrain::detection {

// PriorBoxParameter.CodeType's values.
enum class CodeType { kCorner = 1, kCenterSize = 2, kCornerSize = 3 };

// A prior box and its four variances (x, y, w, h or xmin, ymin, xmax, ymax), as PriorBox's top
// holds them: the boxes in the first channel, the variances in the second.
struct Prior {
  NormalizedBox box;
  std::array<float, 4> variance{{0.1f, 0.1f, 0.1f, 0.1f}};
};

// What the fork checks before decoding with `prior` (it aborts where this returns a message):
// CENTER_SIZE and CORNER_SIZE need a prior of positive width and height. "" when it may be decoded
// with.
std::string PriorProblem(const Prior& prior, CodeType code);

// `box` relative to `prior`. Errors (the fork aborts on each): a prior PriorProblem refuses;
// CENTER_SIZE with a box of non-positive width or height; CORNER and CORNER_SIZE without
// variance_encoded_in_target and a variance that is not positive.
StatusOr<NormalizedBox> EncodeBox(const Prior& prior, CodeType code,
                                  bool variance_encoded_in_target, const NormalizedBox& box);

// The box `offsets` stands for relative to `prior`; only the coordinates are set. Precondition:
// PriorProblem(prior, code) is "" (otherwise the coordinates are infinite or NaN, never a crash).
// Not clipped; where `clip`, clipped to [0, 1] (ClipBox).
NormalizedBox DecodeBox(const Prior& prior, CodeType code, bool variance_encoded_in_target,
                        const NormalizedBox& offsets, bool clip = false);

}  // namespace dtrain::detection
