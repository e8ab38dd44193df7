#include "report/metrics_file.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "core/logging.h"

namespace dtrain {

StatusOr<std::unique_ptr<MetricsFile>> MetricsFile::Open(const std::string& path, bool append) {
  DT_ASSIGN_OR_RETURN(std::unique_ptr<RecordFile> file,
                      RecordFile::Open(path, append, "--metrics"));
  return std::unique_ptr<MetricsFile>(new MetricsFile(std::move(file)));
}

MetricsFile::~MetricsFile() = default;

void MetricsFile::WriteLine(const std::string& line, const std::string& label) {
  if (!file_->status().ok()) return;
  const Status written = file_->Append(line + "\n", label);
  if (!written.ok()) DT_LOG(ERROR) << written.message();
}

namespace {

// Seconds since the Unix epoch, for `dtrain plot --x=seconds`.
double WallTime() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One line of JSON; bytes of names that are not UTF-8 (a top named so in a prototxt) become
// U+FFFD instead of an exception.
std::string Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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
  WriteLine(Dump(j), "the display of iteration " + std::to_string(r.iter));
}

void MetricsFile::WriteTest(const TestReport& r) {
  nlohmann::json j = {
      {"event", "test"}, {"wall_time", WallTime()}, {"iter", r.iter}, {"net", r.net_id}};
  for (const NamedValue& v : r.scores) j["scores"][v.name] = v.value;
  WriteLine(Dump(j), "the test of iteration " + std::to_string(r.iter));
}

void MetricsFile::WriteRestart(int restart, int iter, int ranks, const std::string& reason) {
  WriteLine(Dump({{"event", "restart"},
                  {"wall_time", WallTime()},
                  {"restart", restart},
                  {"iter", iter},
                  {"ranks", ranks},
                  {"reason", reason}}),
            "the restart at iteration " + std::to_string(iter));
}

}  // namespace dtrain
