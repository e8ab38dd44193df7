#include "cli/training_curves.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

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

// A --metrics file: one JSON object a line.
Status ReadMetrics(std::istream& in, const std::string& path, CurveX x_axis, CurveSet* curves) {
  double first_time = NAN;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("event") || !j.contains("iter") || !j["iter"].is_number()) {
      return DataLoss(path + ":" + std::to_string(number) + ": not a metrics event");
    }
    double x = j["iter"].get<double>();
    if (x_axis == CurveX::kSeconds) {
      if (!j.contains("wall_time") || !j["wall_time"].is_number()) {
        return DataLoss(path + ":" + std::to_string(number) +
                        ": no wall_time for --x=seconds (a metrics file of an older dtrain)");
      }
      const double t = j["wall_time"].get<double>();
      if (std::isnan(first_time)) first_time = t;
      x = t - first_time;
    }
    const std::string event = j["event"].is_string() ? j["event"].get<std::string>() : "";
    if (event == "train" && j.contains("loss") && j["loss"].is_number()) {
      curves->Add("train loss", x, j["loss"].get<double>());
    } else if (event == "test" && j.contains("scores") && j["scores"].is_object()) {
      const int net = j.contains("net") && j["net"].is_number_integer() ? j["net"].get<int>() : 0;
      for (const auto& [name, value] : j["scores"].items()) {
        if (value.is_number()) curves->Add(TestCurveName(net, name), x, value.get<double>());
      }
    }
  }
  return Status::Ok();
}

// Seconds of the day of a glog line ("I1203 06:01:02.123456 ..."), or NAN.
double LogLineSeconds(const std::string& line) {
  static const std::regex stamp(R"(^[IWEF]\d{4} (\d\d):(\d\d):(\d\d(\.\d+)?))");
  std::smatch m;
  if (!std::regex_search(line, m, stamp)) return NAN;
  return std::stod(m[1]) * 3600 + std::stod(m[2]) * 60 + std::stod(m[3]);
}

// A Caffe-format log.
Status ReadLog(std::istream& in, CurveX x_axis, CurveSet* curves) {
  static const std::regex train_loss(R"(Iteration (\d+)(?: \([^)]*\))?, loss = ([-+0-9.eEinfa]+))");
  static const std::regex testing(R"(Iteration (\d+), Testing net \(#(\d+)\))");
  static const std::regex test_output(R"(Test net output #\d+: (\S+) = ([-+0-9.eEinfa]+))");
  double first = NAN, previous = NAN, days = 0;
  int test_iter = -1, test_net = 0;
  double test_x = 0;
  std::string line;
  while (std::getline(in, line)) {
    double seconds = LogLineSeconds(line);
    if (!std::isnan(seconds)) {
      if (!std::isnan(previous) && seconds + days < previous - 43200) days += 86400;  // midnight
      seconds += days;
      previous = seconds;
      if (std::isnan(first)) first = seconds;
    }
    auto x_of = [&](int iter) {
      return x_axis == CurveX::kIterations ? double(iter)
                                           : (std::isnan(seconds) ? NAN : seconds - first);
    };
    std::smatch m;
    if (std::regex_search(line, m, testing)) {
      test_iter = std::stoi(m[1]);
      test_net = std::stoi(m[2]);
      test_x = x_of(test_iter);
    } else if (std::regex_search(line, m, test_output) && test_iter >= 0) {
      curves->Add(TestCurveName(test_net, m[1]), test_x, std::strtod(m[2].str().c_str(), nullptr));
    } else if (std::regex_search(line, m, train_loss)) {
      curves->Add("train loss", x_of(std::stoi(m[1])), std::strtod(m[2].str().c_str(), nullptr));
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<RunCurves> ReadRunCurves(const std::string& path, CurveX x) {
  std::ifstream in(path);
  if (!in) return IoError("cannot read " + path);
  const int first = in.peek();
  CurveSet curves;
  if (first == '{') {
    DT_RETURN_IF_ERROR(ReadMetrics(in, path, x, &curves));
  } else {
    DT_RETURN_IF_ERROR(ReadLog(in, x, &curves));
  }
  RunCurves run;
  run.label = std::filesystem::path(path).filename().string();
  run.curves = curves.Take();
  if (run.curves.empty()) {
    return DataLoss(path +
                    ": no training loss or test score in it (neither a --metrics file nor a "
                    "Caffe-format training log?)");
  }
  return run;
}

}  // namespace dtrain
