#include "layers/roi_rows.h"

#include <cmath>
#include <sstream>

namespace dtrain {

Status CheckRoiRowsShape(const Tensor& rois) {
  if (rois.num_axes() < 2 || rois.count(1) != 5) {
    return InvalidArgument(
        "the rois (bottom 1) must hold one row of 5 values (batch index, x1, y1, x2, y2) per "
        "region, shape (R, 5), got " +
        rois.ShapeString());
  }
  return Status::Ok();
}

StatusOr<int> RoiBatchIndex(const float* row_values, int64_t row, int batch) {
  static const char* const kNames[5] = {"batch index", "x1", "y1", "x2", "y2"};
  const std::string where = "roi row " + std::to_string(row) + ": ";
  for (int k = 0; k < 5; ++k) {
    if (!std::isfinite(row_values[k])) {
      return InvalidArgument(where + kNames[k] + " is " + RoiValueString(row_values[k]) +
                             "; every value of a roi must be finite");
    }
  }
  // Caffe converts the index to int, which truncates toward zero: (-1, batch) is accepted.
  const float index = row_values[0];
  if (!(index > -1.f && static_cast<double>(index) < batch)) {
    return InvalidArgument(where + "batch index " + RoiValueString(index) + " is outside [0, " +
                           std::to_string(batch) + "), the features' batch");
  }
  return static_cast<int>(index);
}

std::string RoiValueString(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace dtrain
