// TensorBoardEvents: `dtrain train --tensorboard=DIR`, TensorBoard's event file of the run in
// DIR (the run's own directory: point TensorBoard's --logdir at DIR, or at its parent to compare
// runs). Records are TFRecord-framed Event messages (report/tfrecord.h, proto/tensorboard.proto);
// the file is events.out.tfevents.<seconds>.<host>.<pid>, so a restarted job adds a file beside
// the first one and TensorBoard shows both as one run. Scalars, at the training iteration:
//   train/loss, train/learning_rate, train/images_per_second, train/output/<name> (each display;
//   train/communication_wait_share with several ranks),
//   test/<score> (test net 0) and test_net<N>/<score> (each test pass),
//   job/restart (the restart's number, at the iteration it resumed from).
// Written by rank 0 alone, each event reaching the file as written (a crashed run keeps what it
// wrote). An event that cannot be written (a full disk) is cut off whole and logged as an error at
// once; the file takes no more, and status() holds the error for the run to end with
// (core/record_file.h).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/record_file.h"
#include "core/status.h"
#include "solver/solver.h"

namespace dtrain {

class TensorBoardEvents {
 public:
  // Creates DIR if needed and the event file in it.
  static StatusOr<std::unique_ptr<TensorBoardEvents>> Open(const std::string& dir);
  ~TensorBoardEvents();

  void WriteTrain(const IterationReport& report);
  void WriteTest(const TestReport& report);
  void WriteRestart(int restart, int iter);

  const std::string& path() const { return file_->path(); }
  // Ok, or why an event could not be written.
  const Status& status() const { return file_->status(); }

 private:
  explicit TensorBoardEvents(std::unique_ptr<RecordFile> file) : file_(std::move(file)) {}
  void WriteScalars(int64_t step, const std::vector<std::pair<std::string, float>>& scalars,
                    const std::string& label);
  std::unique_ptr<RecordFile> file_;
};

}  // namespace dtrain
