#include "layers/smooth_l1.h"

#include "layers/legacy_shape.h"

namespace dtrain {

std::string SmoothL1BottomsProblem(const TensorVec& bottom) {
  static const char* const kNames[4] = {"the prediction (bottom 0)", "the target (bottom 1)",
                                        "bbox_inside_weights (bottom 2)",
                                        "bbox_outside_weights (bottom 3)"};
  for (size_t k = 0; k < bottom.size() && k < 4; ++k) {
    if (bottom[k]->num_axes() > 4) {
      return std::string(kNames[k]) + " has more than 4 axes (Caffe compares num, channels, " +
             "height and width), got " + bottom[k]->ShapeString();
    }
    if (k > 0 && LegacyShape(*bottom[k]) != LegacyShape(*bottom[0])) {
      return std::string(kNames[k]) + " must have the shape of " + kNames[0] + ", " +
             bottom[0]->ShapeString() + ", got " + bottom[k]->ShapeString();
    }
  }
  if (bottom[0]->num_axes() == 0) {
    return "the prediction (bottom 0) needs a batch axis, got a scalar";
  }
  return "";
}

}  // namespace dtrain
