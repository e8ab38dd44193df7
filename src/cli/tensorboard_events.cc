#include "cli/tensorboard_events.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "core/tfrecord.h"
#include "proto/tensorboard.pb.h"

namespace dtrain {
namespace {

double WallTime() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

StatusOr<std::unique_ptr<TensorBoardEvents>> TensorBoardEvents::Open(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return IoError("--tensorboard: cannot create " + dir + ": " + error.message());
  char host[256] = "localhost";
  gethostname(host, sizeof(host) - 1);
  const std::string path =
      (std::filesystem::path(dir) /
       ("events.out.tfevents." + std::to_string(static_cast<long long>(WallTime())) + "." + host +
        "." + std::to_string(getpid())))
          .string();
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) return IoError("--tensorboard: cannot write " + path + ": " + std::strerror(errno));
  std::unique_ptr<TensorBoardEvents> events(new TensorBoardEvents(file, path));
  TensorBoardEvent first;
  first.set_wall_time(WallTime());
  first.set_file_version("brain.Event:2");
  const std::string record = FrameTfRecord(first.SerializeAsString());
  std::fwrite(record.data(), 1, record.size(), file);
  std::fflush(file);
  return events;
}

TensorBoardEvents::~TensorBoardEvents() { std::fclose(file_); }

void TensorBoardEvents::WriteScalars(int64_t step,
                                     const std::vector<std::pair<std::string, float>>& scalars) {
  TensorBoardEvent event;
  event.set_wall_time(WallTime());
  event.set_step(step);
  for (const auto& [tag, value] : scalars) {
    TensorBoardSummary::Value* v = event.mutable_summary()->add_value();
    v->set_tag(tag);
    v->set_simple_value(value);
  }
  const std::string record = FrameTfRecord(event.SerializeAsString());
  std::fwrite(record.data(), 1, record.size(), file_);
  std::fflush(file_);
}

void TensorBoardEvents::WriteTrain(const IterationReport& r) {
  std::vector<std::pair<std::string, float>> scalars = {
      {"train/loss", r.loss},
      {"train/learning_rate", r.learning_rate},
      {"train/images_per_second", static_cast<float>(r.images_per_second)}};
  if (r.ranks > 1) {
    scalars.push_back(
        {"train/communication_wait_share", static_cast<float>(r.communication_wait_share)});
  }
  for (const NamedValue& v : r.outputs) scalars.push_back({"train/output/" + v.name, v.value});
  WriteScalars(r.iter, scalars);
}

void TensorBoardEvents::WriteTest(const TestReport& r) {
  const std::string group = r.net_id == 0 ? "test/" : "test_net" + std::to_string(r.net_id) + "/";
  std::vector<std::pair<std::string, float>> scalars;
  for (const NamedValue& v : r.scores) scalars.push_back({group + v.name, v.value});
  WriteScalars(r.iter, scalars);
}

void TensorBoardEvents::WriteRestart(int restart, int iter) {
  WriteScalars(iter, {{"job/restart", static_cast<float>(restart)}});
}

}  // namespace dtrain
