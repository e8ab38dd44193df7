// The regions of interest that ROIPooling and PSROIPooling read from their second bottom: one row
// of five values per region, (batch index, x1, y1, x2, y2), the corners in image pixels, both
// included. The rows are bottom 1's first axis; every row holds count(1) == 5 values, so (R, 5)
// and Caffe's (R, 5, 1, 1) both serve.
//
// What Caffe's layers would crash on or read out of bounds is refused here, naming the row: a
// batch index that does not truncate (as Caffe's int conversion does) into [0, N), and a value
// that is not finite. Pure functions; thread-safe.
#pragma once

#include <string>

#include "core/status.h"
#include "core/tensor.h"

namespace dtrain {

// Checks bottom 1's shape: at least one row, or none, each of 5 values.
Status CheckRoiRowsShape(const Tensor& rois);

// The batch index of `row` (five values at row_values), truncated toward zero as Caffe's int
// conversion does, or an error naming the row: a batch index outside [0, batch) once truncated
// or any of the five values not finite.
StatusOr<int> RoiBatchIndex(const float* row_values, int64_t row, int batch);

// A value for a message, in six significant digits ("2.5", "1e+20", "nan").
std::string RoiValueString(double value);

}  // namespace dtrain
