#include "report/tensorboard_events.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "core/logging.h"
#include "proto/tensorboard.pb.h"
#include "report/tfrecord.h"

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
  DT_ASSIGN_OR_RETURN(std::unique_ptr<RecordFile> file,
                      RecordFile::Open(path, /*append=*/false, "--tensorboard"));
  TensorBoardEvent first;
  first.set_wall_time(WallTime());
  first.set_file_version("brain.Event:2");
  DT_RETURN_IF_ERROR(file->Append(FrameTfRecord(first.SerializeAsString()), "the file's header"));
  return std::unique_ptr<TensorBoardEvents>(new TensorBoardEvents(std::move(file)));
}

TensorBoardEvents::~TensorBoardEvents() = default;

void TensorBoardEvents::WriteScalars(int64_t step,
                                     const std::vector<std::pair<std::string, float>>& scalars,
                                     const std::string& label) {
  if (!file_->status().ok()) return;
  TensorBoardEvent event;
  event.set_wall_time(WallTime());
  event.set_step(step);
  for (const auto& [tag, value] : scalars) {
    TensorBoardSummary::Value* v = event.mutable_summary()->add_value();
    v->set_tag(tag);
    v->set_simple_value(value);
  }
  const Status written = file_->Append(FrameTfRecord(event.SerializeAsString()), label);
  if (!written.ok()) DT_LOG(ERROR) << written.message();
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
  WriteScalars(r.iter, scalars, "the display of iteration " + std::to_string(r.iter));
}

void TensorBoardEvents::WriteTest(const TestReport& r) {
  const std::string group = r.net_id == 0 ? "test/" : "test_net" + std::to_string(r.net_id) + "/";
  std::vector<std::pair<std::string, float>> scalars;
  for (const NamedValue& v : r.scores) scalars.push_back({group + v.name, v.value});
  WriteScalars(r.iter, scalars, "the test of iteration " + std::to_string(r.iter));
}

void TensorBoardEvents::WriteRestart(int restart, int iter) {
  WriteScalars(iter, {{"job/restart", static_cast<float>(restart)}},
               "the restart at iteration " + std::to_string(iter));
}

}  // namespace dtrain
