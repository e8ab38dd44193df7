// The fuzz target of `dtrain plot`'s inputs: Caffe-format training logs and --metrics files
// (report/training_curves.h, report/caffe_log_line.h), and the axis every curve is drawn on
// (report/chart_axis.h). Shared by the libFuzzer binary (plot_inputs_fuzz.cc, scripts/fuzz.sh) and
// the gtest that runs it on random and mutated input in every test run.
//
// The first byte picks: 0 a log or metrics file read on the iteration axis, 1 the same on the
// seconds axis, 2 the axis of two doubles taken from the next 16 bytes. What must hold for any
// input is checked and aborts (a fuzzer finding) when it fails: an error has a message naming the
// file; every point is finite; every curve's axis is finite, at least one step wide, has 2 to
// kMaxTicks ticks with non-empty labels, and places every point within it.
#pragma once

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>

#include "report/caffe_log_line.h"
#include "report/chart_axis.h"
#include "report/training_curves.h"

namespace dtrain {

inline void PlotFuzzCheck(bool holds) {
  if (!holds) std::abort();
}

inline void FuzzAxis(double low, double high) {
  const ChartAxis axis = ChooseAxis(low, high);
  PlotFuzzCheck(std::isfinite(axis.low) && std::isfinite(axis.high) && axis.high > axis.low);
  PlotFuzzCheck(axis.ticks >= 2 && axis.ticks <= kMaxTicks && axis.step > 0);
  for (int i = 0; i < axis.ticks; ++i) PlotFuzzCheck(!axis.Label(i).empty());
  for (double v : {low, high}) {
    const double f = axis.Fraction(v);
    PlotFuzzCheck(f >= -1e-9 && f <= 1 + 1e-9);
  }
}

inline void FuzzPlotInputs(std::string_view input) {
  if (input.empty()) return;
  const int mode = static_cast<unsigned char>(input[0]) % 3;
  input.remove_prefix(1);
  if (mode == 2) {
    if (input.size() < 16) return;
    double a, b;
    std::memcpy(&a, input.data(), 8);
    std::memcpy(&b, input.data() + 8, 8);
    if (!std::isfinite(a) || !std::isfinite(b)) return;
    FuzzAxis(std::min(a, b), std::max(a, b));
    return;
  }
  std::istringstream in{std::string(input)};
  auto run = ParseRunCurves(in, "run.log", mode == 1 ? CurveX::kSeconds : CurveX::kIterations);
  if (!run.ok()) {
    PlotFuzzCheck(run.status().message().rfind("run.log", 0) == 0);
    return;
  }
  for (const Curve& curve : run->curves) {
    PlotFuzzCheck(!curve.points.empty());
    double x_low = INFINITY, x_high = -INFINITY, y_low = INFINITY, y_high = -INFINITY;
    for (const auto& [x, y] : curve.points) {
      PlotFuzzCheck(std::isfinite(x) && std::isfinite(y));
      x_low = std::min(x_low, x), x_high = std::max(x_high, x);
      y_low = std::min(y_low, y), y_high = std::max(y_high, y);
    }
    FuzzAxis(x_low, x_high);
    FuzzAxis(y_low, y_high);
  }
}

}  // namespace dtrain
