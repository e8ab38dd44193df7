// dtrain preflight / dtrain version: what `dtrain launch` runs on every host before a job.
#include <unistd.h>

#include <cstdio>

#include "cli/command.h"
#include "cluster/preflight.h"
#include "kernels/onednn/version.h"

#ifndef DTRAIN_VERSION
#define DTRAIN_VERSION "unknown"
#endif

namespace dtrain {
namespace {

std::string HostName() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return host;
}

Status RunPreflight(const Flags& flags) {
  PreflightRequest request;
  request.version = DTRAIN_VERSION;
  request.expected_version = flags.Get("expect-version");
  request.paths = flags.positional();
  request.interface = flags.Get("interface");
  const std::vector<std::string> problems = PreflightProblems(request);
  for (const std::string& problem : problems)
    std::printf("preflight problem: %s\n", problem.c_str());
  if (problems.empty())
    std::printf("preflight ok: %s, dtrain %s\n", HostName().c_str(), DTRAIN_VERSION);
  std::fflush(stdout);
  if (!problems.empty()) {
    return InvalidArgument(std::to_string(problems.size()) + " problem(s) on " + HostName());
  }
  return Status::Ok();
}

Status RunVersion(const Flags& flags) {
  PrintVersion();
  return Status::Ok();
}

}  // namespace

std::string DtrainVersion() { return DTRAIN_VERSION; }

void PrintVersion() {
  std::printf("dtrain %s\noneDNN %s\n", DTRAIN_VERSION, OnednnVersion().c_str());
}

Command PreflightCommand() {
  return {"preflight",
          "check this host for a launch: version, readable inputs, network interface",
          "[PATH...]",
          {{"expect-version", "the launching host's dtrain version"},
           {"interface", "a network interface that must be up"}},
          RunPreflight};
}

Command VersionCommand() { return {"version", "print dtrain's version", "", {}, RunVersion}; }

}  // namespace dtrain
