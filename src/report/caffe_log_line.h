// One line of a Caffe-format training log as `dtrain plot` reads it (dtrain's or BVLC Caffe's):
// the glog time stamp ("I1203 06:01:02.123456 ..."), a display line ("Iteration N (...), loss =
// X"), the start of a test pass ("Iteration N, Testing net (#K)") or one of its outputs ("Test net
// output #k: accuracy = X"). Every line of a log is hostile input: the scanner is a loop over the
// bytes (no regular expressions, no recursion), never throws, and bounds every number it takes.
// Pure.
#pragma once

#include <cmath>
#include <string>
#include <string_view>

#include "core/status.h"

namespace dtrain {

// Iteration numbers beyond this many digits are refused (2^53 has 16: every accepted iteration
// is exact as a double).
constexpr size_t kMaxIterationDigits = 15;
// A test net's index (Caffe's "Testing net (#K)") is at most this.
constexpr int kMaxTestNet = 999;
// A loss or score is at most this many characters ("-1.2345678901234567e+308" has 24).
constexpr size_t kMaxValueChars = 64;
// A score's name is at most this many bytes.
constexpr size_t kMaxScoreNameBytes = 200;

struct CaffeLogLine {
  enum class Kind { kOther, kTrainLoss, kTesting, kTestOutput };
  Kind kind = Kind::kOther;
  double seconds = NAN;  // the glog stamp's time of day in seconds, NAN without one
  double iteration = 0;  // kTrainLoss, kTesting
  int test_net = 0;      // kTesting
  std::string score;     // kTestOutput: the output's name, odd bytes escaped (\xNN)
  double value = 0;      // kTrainLoss, kTestOutput: may be NaN or infinite ("loss = nan")
};

// An error says which number is out of range; the caller adds the file and line.
StatusOr<CaffeLogLine> ParseCaffeLogLine(std::string_view line);

}  // namespace dtrain
