#include "report/training_curves.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/printable.h"
#include "report/caffe_log_line.h"

namespace dtrain {
namespace {

// Curves by name, in the order first seen.
class CurveSet {
 public:
  void Add(const std::string& name, double x, double y) {
    if (!std::isfinite(x) || !std::isfinite(y)) return;
    auto [it, added] = index_.emplace(name, curves_.size());
    if (added) curves_.push_back({name, {}});
    curves_[it->second].points.push_back({x, y});
  }
  std::vector<Curve> Take() { return std::move(curves_); }

 private:
  std::map<std::string, size_t> index_;
  std::vector<Curve> curves_;
};

std::string TestCurveName(int net, const std::string& score) {
  return (net == 0 ? "test " : "test#" + std::to_string(net) + " ") + score;
}

std::string LineError(const std::string& path, int64_t line, const std::string& what) {
  return path + ":" + std::to_string(line) + ": " + what;
}

// A --metrics file: one JSON object a line.
Status ReadMetrics(std::istream& in, const std::string& path, CurveX x_axis, CurveSet* curves) {
  double first_time = NAN;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("event") || !j.contains("iter") || !j["iter"].is_number()) {
      return DataLoss(LineError(path, number, "not a metrics event"));
    }
    double x = j["iter"].get<double>();
    if (x_axis == CurveX::kSeconds) {
      if (!j.contains("wall_time") || !j["wall_time"].is_number()) {
        return DataLoss(LineError(path, number,
                                  "no wall_time for --x=seconds (a metrics file of an older "
                                  "dtrain)"));
      }
      const double t = j["wall_time"].get<double>();
      if (std::isnan(first_time)) first_time = t;
      x = t - first_time;
    }
    const std::string event = j["event"].is_string() ? j["event"].get<std::string>() : "";
    if (event == "train" && j.contains("loss") && j["loss"].is_number()) {
      curves->Add("train loss", x, j["loss"].get<double>());
    } else if (event == "test" && j.contains("scores") && j["scores"].is_object()) {
      int net = 0;
      if (j.contains("net")) {
        const nlohmann::json& n = j["net"];
        if (!n.is_number_integer() || n.get<int64_t>() < 0 || n.get<int64_t>() > kMaxTestNet) {
          return DataLoss(LineError(path, number,
                                    "\"net\" is " + PrintableBytes(n.dump(), 40) +
                                        ", not a test net's index in [0, " +
                                        std::to_string(kMaxTestNet) + "]"));
        }
        net = n.get<int>();
      }
      for (const auto& [name, value] : j["scores"].items()) {
        if (!value.is_number()) continue;
        if (name.size() > kMaxScoreNameBytes) {
          return DataLoss(LineError(path, number,
                                    "a score name of " + std::to_string(name.size()) +
                                        " bytes is out of range (at most " +
                                        std::to_string(kMaxScoreNameBytes) + ")"));
        }
        curves->Add(TestCurveName(net, PrintableBytes(name)), x, value.get<double>());
      }
    }
  }
  return Status::Ok();
}

// A Caffe-format log (caffe_log_line.h reads each line).
Status ReadLog(std::istream& in, const std::string& path, CurveX x_axis, CurveSet* curves) {
  double first = NAN, previous = NAN, days = 0;
  bool in_test = false;
  int test_net = 0;
  double test_x = 0;
  std::string text;
  for (int64_t number = 1; std::getline(in, text); ++number) {
    StatusOr<CaffeLogLine> parsed = ParseCaffeLogLine(text);
    if (!parsed.ok()) return DataLoss(LineError(path, number, parsed.status().message()));
    const CaffeLogLine& line = *parsed;
    double seconds = line.seconds;
    if (!std::isnan(seconds)) {
      if (!std::isnan(previous) && seconds + days < previous - 43200) days += 86400;  // midnight
      seconds += days;
      previous = seconds;
      if (std::isnan(first)) first = seconds;
    }
    const double x = x_axis == CurveX::kIterations ? line.iteration
                                                   : (std::isnan(seconds) ? NAN : seconds - first);
    switch (line.kind) {
      case CaffeLogLine::Kind::kTesting:
        in_test = true, test_net = line.test_net, test_x = x;
        break;
      case CaffeLogLine::Kind::kTestOutput:
        if (in_test) curves->Add(TestCurveName(test_net, line.score), test_x, line.value);
        break;
      case CaffeLogLine::Kind::kTrainLoss:
        curves->Add("train loss", x, line.value);
        break;
      case CaffeLogLine::Kind::kOther:
        break;
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<RunCurves> ReadRunCurves(const std::string& path, CurveX x) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError("cannot read " + path);
  return ParseRunCurves(in, path, x);
}

StatusOr<RunCurves> ParseRunCurves(std::istream& in, const std::string& path, CurveX x) {
  const int first = in.peek();
  CurveSet curves;
  if (first == '{') {
    DT_RETURN_IF_ERROR(ReadMetrics(in, path, x, &curves));
  } else {
    DT_RETURN_IF_ERROR(ReadLog(in, path, x, &curves));
  }
  RunCurves run;
  run.label = PrintableBytes(std::filesystem::path(path).filename().string());
  run.curves = curves.Take();
  if (run.curves.empty()) {
    return DataLoss(path +
                    ": no training loss or test score in it (neither a --metrics file nor a "
                    "Caffe-format training log?)");
  }
  return run;
}

}  // namespace dtrain
