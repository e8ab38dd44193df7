// The curves of a training run for `dtrain plot`: the training loss and every test score against
// the iteration or the seconds since the run's first event, read from a `--metrics` file
// (JSON lines) or a Caffe-format log, dtrain's or BVLC Caffe's ("Iteration N (...), loss = X",
// "Iteration N, Testing net (#0)", "Test net output #k: accuracy = X", glog time stamps). Any
// bytes give curves or an error, never a crash or a hang; names from the file come with odd
// bytes escaped (\xNN). Reads the file; otherwise pure.
#pragma once

#include <istream>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace dtrain {

struct Curve {
  std::string name;                               // "train loss", "test accuracy", "test#1 loss"
  std::vector<std::pair<double, double>> points;  // (x, y) in the order logged
};

struct RunCurves {
  std::string label;  // the file's name, for the legend
  std::vector<Curve> curves;
};

enum class CurveX { kIterations, kSeconds };

// An error names the file (and line) when it holds no curve, cannot be read, or holds a number
// out of range (caffe_log_line.h's bounds; a metrics file's "net" beyond them).
StatusOr<RunCurves> ReadRunCurves(const std::string& path, CurveX x);

// The same from a stream; `path` names it in errors and the label.
StatusOr<RunCurves> ParseRunCurves(std::istream& in, const std::string& path, CurveX x);

}  // namespace dtrain
