#include "report/chart_axis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dtrain {
namespace {

// 1, 2 or 5 times a power of ten, the smallest at least `rough`.
double NiceStep(double rough) {
  const double power = std::pow(10, std::floor(std::log10(rough)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= rough) return m * power;
  }
  return 10 * power;
}

}  // namespace

double AxisValue(double v) {
  // Below 1e-300 the steps' arithmetic would reach subnormals: such values are zero here.
  if (std::abs(v) < 1e-300) return 0;
  return std::clamp(v, -kAxisLimit, kAxisLimit);
}

ChartAxis ChooseAxis(double low, double high) {
  low = AxisValue(low), high = AxisValue(high);
  if (!(low <= high)) low = high = 0;  // NaN: never passed, but never a hang either
  // A span lost in rounding at this magnitude is no span: pad around the middle instead.
  const double magnitude = std::max(std::abs(low), std::abs(high));
  if (high - low <= magnitude * 1e-9) {
    const double middle = low / 2 + high / 2;
    const double pad = middle == 0 ? 1 : std::abs(middle) * 0.1;
    low = middle - pad, high = middle + pad;
  }
  ChartAxis axis;
  // Five steps or so; the span is at least 1e-9 of the magnitude, so low / step is at most
  // about 5e9 and floor/ceil below are exact enough to keep the tick count small.
  axis.step = NiceStep(high / 5 - low / 5);
  axis.low = std::floor(low / axis.step) * axis.step;
  axis.high = std::ceil(high / axis.step) * axis.step;
  if (!(axis.high > axis.low) || !std::isfinite(axis.high - axis.low)) {
    // Rounding at the very top of the double range: keep the values' own range.
    axis.low = low, axis.high = high, axis.step = high / 4 - low / 4;
  }
  const double steps = std::round(axis.high / axis.step - axis.low / axis.step);
  axis.ticks = static_cast<int>(std::clamp(steps + 1, 2.0, static_cast<double>(kMaxTicks)));
  if (axis.ticks - 1 != steps) {
    axis.step = axis.high / (axis.ticks - 1) - axis.low / (axis.ticks - 1);
  }
  return axis;
}

double ChartAxis::Fraction(double v) const {
  return (AxisValue(v) / 2 - low / 2) / (high / 2 - low / 2);
}

std::string ChartAxis::Label(int i) const {
  const double v = Tick(i);
  const double magnitude = std::max(std::abs(low), std::abs(high));
  char text[48];
  if (step >= 1e-4 && magnitude < 1e9) {
    const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
    std::snprintf(text, sizeof(text), "%.*f", decimals, v);
  } else {
    // Significant digits enough to tell ticks a step apart at this magnitude.
    const int digits =
        static_cast<int>(std::clamp(std::ceil(std::log10(magnitude / step)) + 1, 1.0, 17.0));
    std::snprintf(text, sizeof(text), "%.*g", digits, v);
  }
  return text;
}

}  // namespace dtrain
