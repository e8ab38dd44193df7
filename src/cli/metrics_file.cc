#include "cli/metrics_file.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>

namespace dtrain {

StatusOr<std::unique_ptr<MetricsFile>> MetricsFile::Open(const std::string& path, bool append) {
  FILE* f = std::fopen(path.c_str(), append ? "a" : "w");
  if (!f) return IoError("cannot write metrics file " + path + ": " + std::strerror(errno));
  return std::unique_ptr<MetricsFile>(new MetricsFile(f));
}

MetricsFile::~MetricsFile() { std::fclose(file_); }

void MetricsFile::WriteLine(const std::string& line) {
  std::fputs(line.c_str(), file_);
  std::fputc('\n', file_);
  std::fflush(file_);
}

namespace {

// Seconds since the Unix epoch, for `dtrain plot --x=seconds`.
double WallTime() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

void MetricsFile::WriteTrain(const IterationReport& r) {
  nlohmann::json j = {{"event", "train"},
                      {"wall_time", WallTime()},
                      {"iter", r.iter},
                      {"loss", r.loss},
                      {"lr", r.learning_rate},
                      {"images_per_s", r.images_per_second},
                      {"seconds_left", r.seconds_left}};
  for (const NamedValue& v : r.outputs) j["outputs"][v.name] = v.value;
  if (r.ranks > 1) {
    j["ranks"] = r.ranks;
    j["communication_wait_share"] = r.communication_wait_share;
  }
  WriteLine(j.dump());
}

void MetricsFile::WriteTest(const TestReport& r) {
  nlohmann::json j = {
      {"event", "test"}, {"wall_time", WallTime()}, {"iter", r.iter}, {"net", r.net_id}};
  for (const NamedValue& v : r.scores) j["scores"][v.name] = v.value;
  WriteLine(j.dump());
}

void MetricsFile::WriteRestart(int restart, int iter, int ranks, const std::string& reason) {
  WriteLine(nlohmann::json({{"event", "restart"},
                            {"wall_time", WallTime()},
                            {"restart", restart},
                            {"iter", iter},
                            {"ranks", ranks},
                            {"reason", reason}})
                .dump());
}

}  // namespace dtrain
