// Log lines in glog's (and so Caffe's) format, so that Caffe's log parsers read dtrain's logs:
//   I1129 22:04:52.123456 12345 solver.cc:218] Iteration 100, loss = 0.3
// DT_LOG(INFO) << ...; writes one line to stderr (and the optional log file) when the statement
// ends. Lines from several threads never interleave (one mutex around the write).
// SetLogFile/SetLogToStderr configure the process-wide sink; they change where lines go, never
// results.
#pragma once

#include <sstream>
#include <string>

namespace dtrain {

enum class LogSeverity { kInfo = 'I', kWarning = 'W', kError = 'E' };

class LogMessage {
 public:
  LogMessage(LogSeverity severity, const char* file, int line);
  ~LogMessage();
  std::ostream& stream() { return stream_; }

 private:
  LogSeverity severity_;
  std::ostringstream stream_;
};

// Also append every line to `path` (empty: stop). Returns false if the file cannot be opened.
bool SetLogFile(const std::string& path);
// Whether INFO lines go to stderr (warnings and errors always do).
void SetLogToStderr(bool enabled);

// " (* 1 = 2.94863e-05 loss)": what Caffe's log lines append to an output with a loss weight, the
// numbers in the stream's default format (6 significant digits) as Caffe prints them; "" for a
// weight of 0.
std::string LossWeightSuffix(float weight, float value);

}  // namespace dtrain

#define DT_LOG_INFO ::dtrain::LogSeverity::kInfo
#define DT_LOG_WARNING ::dtrain::LogSeverity::kWarning
#define DT_LOG_ERROR ::dtrain::LogSeverity::kError
#define DT_LOG(severity) ::dtrain::LogMessage(DT_LOG_##severity, __FILE__, __LINE__).stream()
