// MetricsFile: `--metrics=F.jsonl`, one JSON object per line for each display and test event:
//   {"event":"train","iter":100,"loss":0.31,"lr":0.0099,"images_per_s":812.5,"seconds_left":73,
//    "outputs":{"loss":0.31}}
//   {"event":"test","iter":500,"net":0,"scores":{"accuracy":0.9,"loss":0.28}}
//   {"event":"restart","restart":1,"iter":300,"ranks":2,"reason":"rank 2 (host n2) killed ..."}
// (a restart by `dtrain launch --max-restarts`: the iteration it resumed from; such a run appends
// to the file the failed run wrote). Every line also has "wall_time" (seconds since the Unix
// epoch). Lines reach the file as written, so a crashed run keeps every event up to the crash.
// A line that cannot be written (a full disk) is cut off whole and logged as an error at once;
// the file takes no more, and status() holds the error for the run to end with
// (core/record_file.h).
#pragma once

#include <memory>
#include <string>

#include "core/record_file.h"
#include "core/status.h"
#include "solver/solver.h"

namespace dtrain {

class MetricsFile {
 public:
  // `append`: after what the file holds (a restarted job's), else from empty.
  static StatusOr<std::unique_ptr<MetricsFile>> Open(const std::string& path, bool append = false);
  ~MetricsFile();

  void WriteTrain(const IterationReport& report);
  void WriteTest(const TestReport& report);
  void WriteRestart(int restart, int iter, int ranks, const std::string& reason);

  // Ok, or why a line could not be written.
  const Status& status() const { return file_->status(); }

 private:
  explicit MetricsFile(std::unique_ptr<RecordFile> file) : file_(std::move(file)) {}
  void WriteLine(const std::string& line, const std::string& label);
  std::unique_ptr<RecordFile> file_;
};

}  // namespace dtrain
