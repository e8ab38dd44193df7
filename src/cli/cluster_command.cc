// dtrain cluster slurm-script | aws: files that set up and run dtrain on a cluster: an sbatch
// script for a Slurm allocation, an AWS ParallelCluster 3 configuration with its node bootstrap.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "cli/command.h"
#include "cluster/parallelcluster.h"
#include "cluster/slurm_script.h"
#include "core/atomic_file.h"

namespace dtrain {
namespace {

// The absolute path of this binary, which the generated script runs on every node (shared
// storage keeps it at the same path everywhere); "dtrain" (from PATH) when it cannot be read.
std::string ThisBinary() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, n) : "dtrain";
}

// Flags that must be positive integers when given; `fallback` otherwise.
StatusOr<int> IntFlag(const Flags& flags, const std::string& name, int fallback) {
  if (!flags.Has(name)) return fallback;
  return flags.GetInt(name);
}

Status RunSlurmScript(const Flags& flags) {
  if (!flags.positional().empty()) {
    return InvalidArgument("unexpected argument '" + flags.positional()[0] +
                           "' (the training command goes after '--')");
  }
  if (!flags.Has("nodes")) return InvalidArgument("--nodes=N is required");
  SlurmScriptOptions options;
  DT_ASSIGN_OR_RETURN(options.nodes, flags.GetInt("nodes"));
  DT_ASSIGN_OR_RETURN(options.ntasks_per_node, IntFlag(flags, "ntasks-per-node", 1));
  DT_ASSIGN_OR_RETURN(options.cpus_per_task, IntFlag(flags, "cpus-per-task", 0));
  if (flags.Has("cpus-per-task") && options.cpus_per_task < 1) {
    return InvalidArgument("--cpus-per-task must be at least 1, got " + flags.Get("cpus-per-task"));
  }
  options.time = flags.Get("time");
  options.partition = flags.Get("partition");
  options.job_name = flags.Get("job-name");
  options.log = flags.Get("log");
  options.dtrain = flags.Has("dtrain") ? flags.Get("dtrain") : ThisBinary();
  options.train_args = flags.after_dashdash();
  DT_ASSIGN_OR_RETURN(std::string script, SlurmScript(options));
  if (flags.Has("output")) return WriteFileAtomically(flags.Get("output"), script, 0755);
  std::fputs(script.c_str(), stdout);
  return Status::Ok();
}

Command SlurmScriptCommand() {
  return {
      "slurm-script",
      "print an sbatch script that trains with srun across N nodes",
      "--nodes=N [flags] -- train --solver=S [train flags]",
      {{"nodes", "nodes to train on (>= 1)"},
       {"ntasks-per-node", "ranks per node", false, "1"},
       {"cpus-per-task", "cores per rank (#SBATCH --cpus-per-task; sets OMP_NUM_THREADS)"},
       {"time", "time limit: MINUTES or [D-]HH:MM:SS (default: the partition's)"},
       {"partition", "Slurm partition (default: the default partition)"},
       {"job-name", "Slurm job name", false, "dtrain"},
       {"log", "the job's log file (sbatch --output; %x job name, %j job id)", false, "%x-%j.out"},
       {"dtrain", "the dtrain binary the nodes run (default: this binary's absolute path)"},
       {"output", "write the script here, atomically, executable (default: standard output)"}},
      RunSlurmScript};
}

Status RunAws(const Flags& flags) {
  if (!flags.positional().empty() || flags.has_dashdash()) {
    return InvalidArgument(
        "unexpected argument '" +
        (flags.positional().empty() ? std::string("--") : flags.positional()[0]) + "'");
  }
  for (const char* required :
       {"nodes", "instance-type", "key-name", "subnet", "region", "output"}) {
    if (!flags.Has(required)) return InvalidArgument("--" + std::string(required) + " is required");
  }
  ParallelClusterOptions options;
  DT_ASSIGN_OR_RETURN(options.nodes, flags.GetInt("nodes"));
  options.instance_type = flags.Get("instance-type");
  options.key_name = flags.Get("key-name");
  options.subnet = flags.Get("subnet");
  options.region = flags.Get("region");
  options.efa = flags.GetBool("efa");
  options.shared_storage = flags.Get("shared-storage");
  options.head_instance_type = flags.Get("head-instance-type");
  options.os = flags.Get("os");
  options.bootstrap_s3 = flags.Get("bootstrap-s3");
  options.source = flags.Get("source");
  DT_ASSIGN_OR_RETURN(ParallelClusterFiles files, ParallelClusterConfig(options));
  const std::string dir = flags.Get("output");
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return IoError("cannot create directory " + dir + ": " + error.message());
  DT_RETURN_IF_ERROR(WriteFileAtomically(dir + "/cluster.yaml", files.cluster_yaml));
  DT_RETURN_IF_ERROR(WriteFileAtomically(dir + "/bootstrap.sh", files.bootstrap_sh, 0755));
  std::printf("wrote %s/cluster.yaml and %s/bootstrap.sh (docs/aws.md: what next)\n", dir.c_str(),
              dir.c_str());
  for (const std::string& note : files.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
  return Status::Ok();
}

Command AwsCommand() {
  return {"aws",
          "write an AWS ParallelCluster 3 config (cluster.yaml) and node bootstrap for dtrain",
          "--nodes=N --instance-type=T --key-name=K --subnet=S --region=R --output=DIR",
          {{"nodes", "the most compute nodes (1 to " + std::to_string(kMaxParallelClusterNodes) +
                         "); they start when jobs need them"},
           {"instance-type", "compute nodes' EC2 type, e.g. c5n.18xlarge"},
           {"key-name", "EC2 key pair for ssh to the head node"},
           {"subnet", "VPC subnet of every node, subnet-..."},
           {"region", "AWS region, e.g. us-east-1"},
           {"efa", "Elastic Fabric Adapter on the compute nodes (types that have one)", true},
           {"shared-storage", "file system at /shared: efs or fsx (FSx for Lustre)", false, "efs"},
           {"head-instance-type",
            "head node's type (default: the smallest with the compute "
            "nodes' processor)"},
           {"os", "ubuntu2204 or alinux2 (bootstrap.sh builds only on ubuntu2204)", false,
            "ubuntu2204"},
           {"bootstrap-s3",
            "s3://BUCKET/KEY where you will upload bootstrap.sh (default: a "
            "placeholder to replace)"},
           {"source",
            "dtrain's source for the nodes: s3://.../X.tar.gz or a git URL (default: "
            "dtrain-src.tar.gz next to bootstrap.sh), or a Debian package (s3://, https:// "
            "or a path, ending .deb) that every node installs instead of building"},
           {"output", "directory for cluster.yaml and bootstrap.sh"}},
          RunAws};
}

}  // namespace

CommandGroup ClusterCommands() {
  return {"cluster",
          "files that set up and run dtrain on a cluster",
          {SlurmScriptCommand(), AwsCommand()}};
}

}  // namespace dtrain
