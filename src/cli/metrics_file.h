// MetricsFile: `--metrics=F.jsonl`, one JSON object per line for each display and test event:
//   {"event":"train","iter":100,"loss":0.31,"lr":0.0099,"images_per_s":812.5,"seconds_left":73,
//    "outputs":{"loss":0.31}}
//   {"event":"test","iter":500,"net":0,"scores":{"accuracy":0.9,"loss":0.28}}
// Lines are flushed as written, so a crashed run keeps every event up to the crash.
#pragma once

#include <cstdio>
#include <string>

#include "core/status.h"
#include "solver/solver.h"

namespace dtrain {

class MetricsFile {
 public:
  static StatusOr<std::unique_ptr<MetricsFile>> Open(const std::string& path);
  ~MetricsFile();

  void WriteTrain(const IterationReport& report);
  void WriteTest(const TestReport& report);

 private:
  explicit MetricsFile(FILE* file) : file_(file) {}
  void WriteLine(const std::string& line);
  FILE* file_;
};

}  // namespace dtrain
