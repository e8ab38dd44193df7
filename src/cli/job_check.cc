#include "cli/job_check.h"

#include "cli/command.h"

namespace dtrain {

Status CheckJobCommand(const std::vector<std::string>& job) {
  if (job.empty()) {
    return InvalidArgument("no job: give the dtrain command after --, e.g. -- train --solver=S");
  }
  const std::string& name = job[0];
  Command command;
  if (name == "train") {
    command = TrainCommand();
  } else if (name == "test") {
    command = TestCommand();
  } else if (name == "time") {
    command = TimeCommand();
  } else {
    return InvalidArgument("the job must be a dtrain train, test or time command, not '" + name +
                           "'");
  }
  StatusOr<Flags> flags =
      Flags::Parse(std::vector<std::string>(job.begin() + 1, job.end()), command.flags);
  if (!flags.ok()) return InvalidArgument("the job's " + name + ": " + flags.status().message());
  if (!flags->positional().empty()) {
    return InvalidArgument("the job's " + name + ": unexpected argument '" +
                           flags->positional()[0] + "'");
  }
  const std::string required = name == "train" ? "solver" : "model";
  if (flags->Get(required).empty()) {
    return InvalidArgument("the job's " + name + " has no --" + required + " (dtrain " + name +
                           " cannot run without it)");
  }
  if (name == "train" && flags->Has("snapshot") && flags->Has("weights")) {
    return InvalidArgument(
        "the job's train gives --snapshot (resume) and --weights (fine-tune): give one");
  }
  return Status::Ok();
}

}  // namespace dtrain
