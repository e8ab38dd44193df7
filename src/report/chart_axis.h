// The scale of one axis of `dtrain plot`'s picture: a range widened to whole ticks of 1, 2 or 5
// times a power of ten, and the ticks' labels. Any finite values give a finite range of at least
// one step (values all equal, or so close that their difference is lost in rounding, are padded
// around their middle; values beyond 1e300 in magnitude are held at 1e300, and values below 1e-300
// count as 0), and at most kMaxTicks ticks: the caller's loop over them always ends. Pure.
#pragma once

#include <string>

namespace dtrain {

constexpr int kMaxTicks = 12;
constexpr double kAxisLimit = 1e300;

struct ChartAxis {
  double low = 0, high = 1;  // high > low, both finite
  double step = 1;           // between ticks
  int ticks = 2;             // low, low + step, ..., high: in [2, kMaxTicks]

  double Tick(int i) const { return i + 1 == ticks ? high : low + step * i; }
  // 0 at low, 1 at high.
  double Fraction(double v) const;
  // The tick's label, with as many digits as the step needs to tell ticks apart.
  std::string Label(int i) const;
};

// `low` <= `high`, both finite (callers pass the smallest and largest value).
ChartAxis ChooseAxis(double low, double high);

// `v` as the axis takes it: held within [-kAxisLimit, kAxisLimit], 0 below 1e-300 in magnitude.
double AxisValue(double v);

}  // namespace dtrain
