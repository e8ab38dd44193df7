// dtrain hosts: an Open MPI hostfile from a list of names, the Slurm allocation it runs in, or
// the output of `aws ec2 describe-instances`. The first host is the master (rank 0); it computes
// too.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "cli/command.h"
#include "cluster/ec2_hosts.h"
#include "cluster/host_sources.h"
#include "cluster/hostfile.h"
#include "core/atomic_file.h"
#include "core/output_guard.h"

namespace dtrain {
namespace {

std::optional<std::string> Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::optional<std::string>(value) : std::nullopt;
}

StatusOr<std::vector<Host>> HostsFromEc2File(const std::string& path, const Flags& flags,
                                             int slots) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read EC2 instances file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  std::optional<Ec2TagFilter> tag;
  if (flags.Has("tag")) {
    DT_ASSIGN_OR_RETURN(tag, ParseEc2TagFilter(flags.Get("tag")));
  }
  DT_ASSIGN_OR_RETURN(std::vector<std::string> addresses,
                      Ec2PrivateAddresses(text.str(), path, tag));
  std::vector<Host> hosts;
  for (const std::string& address : addresses) {
    DT_RETURN_IF_ERROR(CheckHostName(address).WithContext(path));
    hosts.push_back({address, slots});
  }
  return hosts;
}

Status RunHosts(const Flags& flags) {
  if (!flags.positional().empty() || flags.has_dashdash()) {
    return InvalidArgument(
        "unexpected argument '" +
        (flags.positional().empty() ? std::string("--") : flags.positional()[0]) + "'");
  }
  const int sources = flags.Has("list") + flags.GetBool("slurm") + flags.Has("ec2-json");
  if (sources != 1) {
    return InvalidArgument(
        "give exactly one source of hosts: --list=a,b,c, --slurm or "
        "--ec2-json=FILE");
  }
  if (flags.Has("tag") && !flags.Has("ec2-json")) {
    return InvalidArgument("--tag filters EC2 instances; it needs --ec2-json");
  }
  int slots = 0;  // 0: the source's own (Slurm's tasks per node; 1 elsewhere)
  if (flags.Has("slots")) {
    DT_ASSIGN_OR_RETURN(slots, flags.GetInt("slots"));
    DT_RETURN_IF_ERROR(CheckSlots(slots, "--slots"));
  }
  StatusOr<std::vector<Host>> hosts = InvalidArgument("no source");
  if (flags.Has("list")) {
    hosts = HostsFromList(flags.Get("list"), slots > 0 ? slots : 1);
  } else if (flags.GetBool("slurm")) {
    hosts = HostsFromSlurm(
        {Env("SLURM_JOB_NODELIST"), Env("SLURM_NTASKS_PER_NODE"), Env("SLURM_TASKS_PER_NODE")},
        slots);
  } else {
    hosts = HostsFromEc2File(flags.Get("ec2-json"), flags, slots > 0 ? slots : 1);
  }
  if (!hosts.ok()) return hosts.status();
  const std::string text = FormatHostfile(*hosts);
  if (flags.Has("output")) {
    DT_RETURN_IF_ERROR(RefuseOutputOverInput("--output", flags.Get("output"),
                                             {{"the --ec2-json file", flags.Get("ec2-json")}}));
    return WriteFileAtomically(flags.Get("output"), text);
  }
  std::fputs(text.c_str(), stdout);
  return Status::Ok();
}

}  // namespace

Command HostsCommand() {
  return {"hosts",
          "write an Open MPI hostfile from a list, a Slurm allocation or EC2 instances",
          "(--list=a,b,c | --slurm | --ec2-json=FILE [--tag=KEY=VALUE])",
          {{"list", "comma-separated host names or addresses; the first is the master"},
           {"slurm", "the hosts of the Slurm allocation this runs in (SLURM_JOB_NODELIST)", true},
           {"ec2-json",
            "the JSON of `aws ec2 describe-instances`: running instances' private "
            "addresses, ordered by launch time"},
           {"tag", "with --ec2-json: only instances with this tag, KEY=VALUE"},
           {"slots", "ranks per host (default: Slurm's tasks per node under --slurm, else 1)"},
           {"output", "write the hostfile here, atomically (default: standard output)"}},
          RunHosts};
}

}  // namespace dtrain
