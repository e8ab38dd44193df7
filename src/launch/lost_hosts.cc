#include "launch/lost_hosts.h"

#include <cstdlib>
#include <regex>

namespace dtrain {
namespace {

struct Pattern {
  std::regex expression;
  int host_group;
  // The reason, from the match.
  std::string (*reason)(const std::smatch& m);
};

const std::vector<Pattern>& Patterns() {
  static const std::vector<Pattern> patterns = {
      {std::regex(
           R"(process rank (\d+) with PID \d+ on node (\S+) exited on signal (\d+)( \(([^)]*)\))?)"),
       2,
       [](const std::smatch& m) {
         return "rank " + m[1].str() + " was killed by signal " + m[3].str() +
                (m[5].matched ? " (" + m[5].str() + ")" : std::string());
       }},
      {std::regex(R"(Remote daemon: *\S+ on node (\S+))"), 1,
       [](const std::smatch&) { return std::string("mpirun lost contact with its daemon"); }},
      {std::regex(R"(srun: error: Node failure on (\S+))"), 1,
       [](const std::smatch&) { return std::string("node failure (srun)"); }},
  };
  return patterns;
}

// The watchdog's report: how long the collective stalled, and each peer silent for how long.
const std::regex& StallPattern() {
  static const std::regex pattern(R"(has made no progress for ([0-9.]+) s)");
  return pattern;
}
const std::regex& SilentPeerPattern() {
  static const std::regex pattern(R"(rank (\d+) \(host ([^)\s]+)\): silent for ([0-9.]+) s)");
  return pattern;
}

// srun's word on a task that died, and on the step's end that takes the other tasks with it.
const std::regex& SrunTaskPattern() {
  static const std::regex pattern(
      R"(srun: error: (\S+): tasks? ([0-9,-]+): (Killed|Terminated|Aborted|Segmentation fault|Bus error))");
  return pattern;
}
const std::regex& SrunStepEndPattern() {
  static const std::regex pattern(
      R"(Terminating StepId=|\*\*\* STEP \S+ ON \S+ CANCELLED|Job step aborted)");
  return pattern;
}

const std::regex& SigtermPattern() {
  static const std::regex pattern(R"(rank (\d+) of \d+ \(host ([^,)\s]+)[^)]*\) received SIGTERM)");
  return pattern;
}

const std::regex& IterationPattern() {
  static const std::regex pattern(R"(Iteration (\d+))");
  return pattern;
}

// Longer console lines are not scanned.
constexpr size_t kMaxScannedLine = 4096;

}  // namespace

void LostHostScanner::AddLine(const std::string& line) {
  // The messages read here are short; a longer line (a rank echoing a user's file) is none of
  // them, and std::regex recurses over the characters it matches.
  if (line.size() > kMaxScannedLine) return;
  if (line.find("Optimization stopped early.") != std::string::npos) stopped_early_ = true;
  std::smatch m;
  if (line.find("Iteration ") != std::string::npos &&
      std::regex_search(line, m, IterationPattern()) && m[1].length() < 18) {
    last_iteration_ = std::max(last_iteration_, std::stoll(m[1].str()));
  }
  // A peer silent for much less than the stall did not cause it: it is one that the job's end
  // (mpirun's, another rank's watchdog) took down first.
  // ("for . s" is no number of seconds: not the watchdog's report.)
  if (std::regex_search(line, m, StallPattern()) && std::strtod(m[1].str().c_str(), nullptr) > 0) {
    const double stalled = std::strtod(m[1].str().c_str(), nullptr);
    for (auto it = std::sregex_iterator(line.begin(), line.end(), SilentPeerPattern());
         it != std::sregex_iterator(); ++it) {
      if (std::strtod((*it)[3].str().c_str(), nullptr) < stalled / 2) continue;
      lost_.emplace((*it)[2].str(), "rank " + (*it)[1].str() + " fell silent (no heartbeat for " +
                                        (*it)[3].str() + " s)");
    }
  }
  if (std::regex_search(line, m, SigtermPattern())) {
    sent_sigterm_.emplace(m[2].str(), "rank " + m[1].str() + " was sent SIGTERM (pre-emption?)");
  }
  // The tasks srun reports killed once it ends the step are the step's end, not its cause.
  if (std::regex_search(line, SrunStepEndPattern())) srun_step_ended_ = true;
  if (!srun_step_ended_ && std::regex_search(line, m, SrunTaskPattern())) {
    lost_.emplace(m[1].str(), "task " + m[2].str() + ": " + m[3].str() + " (srun)");
  }
  for (const Pattern& pattern : Patterns()) {
    for (auto it = std::sregex_iterator(line.begin(), line.end(), pattern.expression);
         it != std::sregex_iterator(); ++it) {
      std::string host = (*it)[pattern.host_group].str();
      while (!host.empty() && (host.back() == '.' || host.back() == ',')) host.pop_back();
      lost_.emplace(host, pattern.reason(*it));
    }
  }
}

}  // namespace dtrain
