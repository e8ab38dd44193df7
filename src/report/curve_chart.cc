#include "report/curve_chart.h"

#include <cairo-svg.h>
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "report/chart_axis.h"

namespace dtrain {
namespace {

constexpr double kWidth = 900, kPanelHeight = 280;
// A panel per curve: 32 keep the PNG within cairo's largest image (32767 pixels high).
constexpr size_t kMaxPanels = 32;
constexpr double kLeft = 80, kRight = 24, kTop = 34, kBottom = 46;
// Distinct colours for the runs (Tableau 10's first ones).
constexpr double kColours[][3] = {{0.12, 0.47, 0.71}, {1.00, 0.50, 0.05}, {0.17, 0.63, 0.17},
                                  {0.84, 0.15, 0.16}, {0.58, 0.40, 0.74}, {0.55, 0.34, 0.29},
                                  {0.89, 0.47, 0.76}, {0.50, 0.50, 0.50}};

struct Range {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  void Add(double v) { low = std::min(low, v), high = std::max(high, v); }
};

void Text(cairo_t* cr, double x, double y, const std::string& text, double align_x,
          double align_y) {
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  cairo_move_to(cr, x - extents.width * align_x - extents.x_bearing,
                y - extents.height * align_y - extents.y_bearing);
  cairo_show_text(cr, text.c_str());
}

void DrawPanel(cairo_t* cr, const std::vector<RunCurves>& runs, const std::string& name,
               CurveX x_axis, double top) {
  Range xr, yr;
  for (const RunCurves& run : runs) {
    for (const Curve& c : run.curves) {
      if (c.name != name) continue;
      for (const auto& [x, y] : c.points) xr.Add(x), yr.Add(y);
    }
  }
  const ChartAxis xa = ChooseAxis(xr.low, xr.high), ya = ChooseAxis(yr.low, yr.high);
  const double left = kLeft, right = kWidth - kRight;
  const double plot_top = top + kTop, bottom = top + kPanelHeight - kBottom;
  auto px = [&](double x) { return left + xa.Fraction(x) * (right - left); };
  auto py = [&](double y) { return bottom - ya.Fraction(y) * (bottom - plot_top); };
  // Grid, ticks and their labels.
  cairo_set_font_size(cr, 11);
  cairo_set_line_width(cr, 1);
  for (int i = 0; i < xa.ticks; ++i) {
    const double x = px(xa.Tick(i));
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, x, plot_top), cairo_line_to(cr, x, bottom), cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    Text(cr, x, bottom + 5, xa.Label(i), 0.5, 0);
  }
  for (int i = 0; i < ya.ticks; ++i) {
    const double y = py(ya.Tick(i));
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, left, y), cairo_line_to(cr, right, y), cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    Text(cr, left - 6, y, ya.Label(i), 1, 0.5);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_rectangle(cr, left, plot_top, right - left, bottom - plot_top);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 14);
  Text(cr, left, top + 10, name, 0, 0);
  cairo_set_font_size(cr, 11);
  Text(cr, (left + right) / 2, bottom + 22, x_axis == CurveX::kIterations ? "iteration" : "seconds",
       0.5, 0);
  // The curves, clipped to the frame; a curve of few points (test passes) also marks each.
  cairo_save(cr);
  cairo_rectangle(cr, left, plot_top, right - left, bottom - plot_top);
  cairo_clip(cr);
  for (size_t r = 0; r < runs.size(); ++r) {
    const double* colour = kColours[r % (sizeof(kColours) / sizeof(kColours[0]))];
    cairo_set_source_rgb(cr, colour[0], colour[1], colour[2]);
    for (const Curve& c : runs[r].curves) {
      if (c.name != name || c.points.empty()) continue;
      cairo_set_line_width(cr, 1.6);
      cairo_move_to(cr, px(c.points[0].first), py(c.points[0].second));
      for (const auto& [x, y] : c.points) cairo_line_to(cr, px(x), py(y));
      cairo_stroke(cr);
      if (c.points.size() > 60) continue;
      for (const auto& [x, y] : c.points) {
        cairo_arc(cr, px(x), py(y), 2.5, 0, 2 * M_PI);
        cairo_fill(cr);
      }
    }
  }
  cairo_restore(cr);
  // The legend, right inside the frame: at the top, unless the curves end in the upper half
  // (accuracy rising to 1), then at the bottom, clear of them.
  bool end_high = false;
  for (const RunCurves& run : runs) {
    for (const Curve& c : run.curves) {
      if (c.name == name && !c.points.empty()) {
        end_high = end_high || py(c.points.back().second) < (plot_top + bottom) / 2;
      }
    }
  }
  double y = end_high ? bottom - 8 - 16.0 * static_cast<double>(runs.size()) : plot_top + 8;
  for (size_t r = 0; r < runs.size(); ++r, y += 16) {
    const double* colour = kColours[r % (sizeof(kColours) / sizeof(kColours[0]))];
    cairo_text_extents_t extents;
    cairo_text_extents(cr, runs[r].label.c_str(), &extents);
    const double text_x = right - 10 - extents.x_advance;
    cairo_set_source_rgb(cr, colour[0], colour[1], colour[2]);
    cairo_set_line_width(cr, 3);
    cairo_move_to(cr, text_x - 26, y + 6), cairo_line_to(cr, text_x - 6, y + 6), cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    Text(cr, text_x, y + 6, runs[r].label, 0, 0.5);
  }
}

}  // namespace

Status DrawCurves(const std::vector<RunCurves>& runs, CurveX x, const std::string& output) {
  std::vector<std::string> names;  // the panels: the training loss, then as first seen
  for (const RunCurves& run : runs) {
    for (const Curve& c : run.curves) {
      if (std::find(names.begin(), names.end(), c.name) == names.end()) names.push_back(c.name);
    }
  }
  std::stable_partition(names.begin(), names.end(),
                        [](const std::string& n) { return n == "train loss"; });
  if (names.size() > kMaxPanels) {
    return InvalidArgument("the runs hold " + std::to_string(names.size()) +
                           " different curves; one picture draws at most " +
                           std::to_string(kMaxPanels) + " (first ones: '" + names[0] + "', '" +
                           names[1] + "', ...)");
  }
  const double height = kPanelHeight * static_cast<double>(names.size());
  const bool svg = output.size() > 4 && output.compare(output.size() - 4, 4, ".svg") == 0;
  const bool png = output.size() > 4 && output.compare(output.size() - 4, 4, ".png") == 0;
  if (!svg && !png)
    return InvalidArgument("--output must end in .png or .svg, not '" + output + "'");
  cairo_surface_t* surface =
      svg ? cairo_svg_surface_create(output.c_str(), kWidth, height)
          : cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(kWidth),
                                       static_cast<int>(height));
  cairo_t* cr = cairo_create(surface);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  for (size_t i = 0; i < names.size(); ++i) {
    DrawPanel(cr, runs, names[i], x, kPanelHeight * static_cast<double>(i));
  }
  cairo_destroy(cr);
  cairo_status_t status = cairo_surface_status(surface);
  if (png && status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_write_to_png(surface, output.c_str());
  cairo_surface_finish(surface);
  if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS) {
    return IoError("cannot write " + output + ": " + cairo_status_to_string(status));
  }
  return Status::Ok();
}

}  // namespace dtrain
