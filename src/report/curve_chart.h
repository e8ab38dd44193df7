// `dtrain plot`'s picture, drawn with cairo (Debian's libcairo2: one library for both PNG and
// SVG, vector text and antialiased lines, no plotting runtime to ship): one panel per curve
// ("train loss", "test accuracy", ...) stacked top to bottom, each with its axes, ticks, grid and
// every run's curve overlaid in a colour of its own, and a legend naming the runs. Writes the
// file; otherwise pure.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "report/training_curves.h"

namespace dtrain {

// PNG or SVG by `output`'s extension (.png, .svg); an error names the file.
Status DrawCurves(const std::vector<RunCurves>& runs, CurveX x, const std::string& output);

}  // namespace dtrain
