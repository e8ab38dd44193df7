#include "core/logging.h"

#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>

namespace dtrain {
namespace {

struct LogSink {
  std::mutex mutex;
  FILE* file = nullptr;
  bool to_stderr = true;
};

LogSink& Sink() {
  static LogSink sink;
  return sink;
}

}  // namespace

LogMessage::LogMessage(LogSeverity severity, const char* file, int line) : severity_(severity) {
  timeval now;
  gettimeofday(&now, nullptr);
  tm local;
  localtime_r(&now.tv_sec, &local);
  const char* base = std::strrchr(file, '/');
  char prefix[128];
  std::snprintf(prefix, sizeof(prefix), "%c%02d%02d %02d:%02d:%02d.%06ld %5ld %s:%d] ",
                static_cast<char>(severity), local.tm_mon + 1, local.tm_mday, local.tm_hour,
                local.tm_min, local.tm_sec, static_cast<long>(now.tv_usec),
                static_cast<long>(syscall(SYS_gettid)), base ? base + 1 : file, line);
  stream_ << prefix;
}

LogMessage::~LogMessage() {
  stream_ << '\n';
  const std::string text = stream_.str();
  LogSink& sink = Sink();
  std::lock_guard<std::mutex> lock(sink.mutex);
  if (sink.to_stderr || severity_ != LogSeverity::kInfo) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  }
  if (sink.file) {
    std::fwrite(text.data(), 1, text.size(), sink.file);
    std::fflush(sink.file);
  }
}

bool SetLogFile(const std::string& path) {
  LogSink& sink = Sink();
  std::lock_guard<std::mutex> lock(sink.mutex);
  if (sink.file) std::fclose(sink.file);
  sink.file = nullptr;
  if (path.empty()) return true;
  sink.file = std::fopen(path.c_str(), "a");
  return sink.file != nullptr;
}

void SetLogToStderr(bool enabled) {
  LogSink& sink = Sink();
  std::lock_guard<std::mutex> lock(sink.mutex);
  sink.to_stderr = enabled;
}

std::string LossWeightSuffix(float weight, float value) {
  if (weight == 0.f) return "";
  std::ostringstream out;
  out << " (* " << weight << " = " << weight * value << " loss)";
  return out.str();
}

}  // namespace dtrain
