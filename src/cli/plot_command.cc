// dtrain plot: training curves of one or more runs, overlaid, as a PNG or SVG (Caffe's
// plot_training_log.py, for dtrain's metrics files and Caffe-format logs alike).
#include "cli/command.h"
#include "core/logging.h"
#include "core/output_guard.h"
#include "report/curve_chart.h"
#include "report/training_curves.h"

namespace dtrain {
namespace {

Status RunPlot(const Flags& flags) {
  if (flags.positional().empty()) {
    return InvalidArgument("give one or more --metrics files or training logs to plot");
  }
  if (!flags.Has("output")) return InvalidArgument("--output=F.png or F.svg is required");
  const std::string x = flags.Get("x");
  if (x != "iterations" && x != "seconds") {
    return InvalidArgument("--x must be iterations or seconds, not '" + x + "'");
  }
  const CurveX axis = x == "seconds" ? CurveX::kSeconds : CurveX::kIterations;
  std::vector<NamedPath> inputs;
  for (const std::string& path : flags.positional()) inputs.push_back({"a run to plot", path});
  DT_RETURN_IF_ERROR(RefuseOutputOverInput("--output", flags.Get("output"), inputs));
  std::vector<RunCurves> runs;
  for (const std::string& path : flags.positional()) {
    DT_ASSIGN_OR_RETURN(RunCurves run, ReadRunCurves(path, axis));
    runs.push_back(std::move(run));
  }
  DT_RETURN_IF_ERROR(DrawCurves(runs, axis, flags.Get("output")));
  size_t curves = 0;
  for (const RunCurves& run : runs) curves += run.curves.size();
  std::printf("plot: %zu curve(s) of %zu run(s) in %s\n", curves, runs.size(),
              flags.Get("output").c_str());
  return Status::Ok();
}

}  // namespace

Command PlotCommand() {
  return {"plot",
          "draw training loss and test scores of runs (metrics files or Caffe-format logs)",
          "RUN... (--metrics files or training logs, overlaid)",
          {{"output", "the picture: F.png or F.svg"},
           {"x", "iterations or seconds (since each run's first event)", false, "iterations"}},
          RunPlot};
}

}  // namespace dtrain
