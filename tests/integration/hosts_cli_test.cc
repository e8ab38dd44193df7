// `dtrain hosts` through the real command line: the hostfile it prints or writes for each source,
// and a clear error, exit status 1, for each bad request.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::ReadFile;

using testing::RunDtrain;
using testing::RunShell;

// `dtrain hosts ARGS` with exactly the Slurm variables in `env` ("A=1 B=2").
testing::CommandResult HostsWithEnv(const std::string& env, const std::string& args) {
  return RunShell("env -u SLURM_JOB_NODELIST -u SLURM_NTASKS_PER_NODE -u SLURM_TASKS_PER_NODE " +
                  env + " '" + DTRAIN_BINARY + "' hosts " + args);
}

TEST(HostsCli, ListPrintsAHostfile) {
  auto r = RunDtrain("hosts --list=master,10.0.0.12 --slots=2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "master slots=2\n10.0.0.12 slots=2\n");
}

TEST(HostsCli, SlurmExpandsTheNodeListWithTasksPerNode) {
  auto r = HostsWithEnv(
      "SLURM_JOB_NODELIST='node[01-02],gpu-[001-002]' SLURM_TASKS_PER_NODE='2(x3),1'", "--slurm");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "node01 slots=2\nnode02 slots=2\ngpu-001 slots=2\ngpu-002 slots=1\n");
  r = HostsWithEnv("SLURM_JOB_NODELIST='n[1-2]' SLURM_NTASKS_PER_NODE=3", "--slurm");
  EXPECT_EQ(r.output, "n1 slots=3\nn2 slots=3\n");
  r = HostsWithEnv("SLURM_JOB_NODELIST='n[1-2]' SLURM_NTASKS_PER_NODE=3", "--slurm --slots=1");
  EXPECT_EQ(r.output, "n1 slots=1\nn2 slots=1\n");
}

TEST(HostsCli, Ec2JsonWritesTheHostfileAtomically) {
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("instances.json"), R"({"Reservations": [{"Instances": [
    {"InstanceId": "i-2", "AmiLaunchIndex": 1, "State": {"Name": "running"},
     "PrivateIpAddress": "10.0.0.8", "Tags": [{"Key": "cluster", "Value": "dtrain"}]},
    {"InstanceId": "i-1", "AmiLaunchIndex": 0, "State": {"Name": "running"},
     "PrivateIpAddress": "10.0.0.7", "Tags": [{"Key": "cluster", "Value": "dtrain"}]},
    {"InstanceId": "i-3", "AmiLaunchIndex": 2, "State": {"Name": "running"},
     "PrivateIpAddress": "10.0.0.9"}]}]})");
  testing::WriteTextFile(dir.Path("hosts"), "old\n");
  auto r = RunDtrain("hosts --ec2-json=" + dir.Path("instances.json") +
                     " --tag=cluster=dtrain --slots=4 --output=" + dir.Path("hosts"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "");
  EXPECT_EQ(ReadFile(dir.Path("hosts")), "10.0.0.7 slots=4\n10.0.0.8 slots=4\n");
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.Path("")))
    files += !entry.is_directory();
  EXPECT_EQ(files, 2u);  // no temporary file left
}

TEST(HostsCli, BadRequestsAreClearErrors) {
  EXPECT_FAILS_WITH(RunDtrain("hosts"), "give exactly one source of hosts");
  EXPECT_FAILS_WITH(RunDtrain("hosts --list=a --slurm"), "give exactly one source of hosts");
  EXPECT_FAILS_WITH(RunDtrain("hosts --list=a,,b"), "host list 'a,,b', item 2 is empty");
  EXPECT_FAILS_WITH(RunDtrain("hosts --list=a,b,a"), "host 'a' is listed twice");
  EXPECT_FAILS_WITH(RunDtrain("hosts --list=a --slots=0"),
                    "--slots must be in [1, 4096] ranks per host, got 0");
  EXPECT_FAILS_WITH(RunDtrain("hosts --list=a --slots=9999999"),
                    "--slots must be in [1, 4096] ranks per host, got 9999999");
  EXPECT_FAILS_WITH(RunDtrain("hosts --list=a --tag=k=v"), "--tag filters EC2 instances");
  EXPECT_FAILS_WITH(
      HostsWithEnv("", "--slurm"),
      "dtrain hosts: error: not inside a Slurm allocation (SLURM_JOB_NODELIST is not set)");
  EXPECT_FAILS_WITH(HostsWithEnv("SLURM_JOB_NODELIST='n[1-3'", "--slurm"),
                    "SLURM_JOB_NODELIST: bad Slurm node list item 'n[1-3': '[' without ']'");
  EXPECT_FAILS_WITH(RunDtrain("hosts --ec2-json=/nonexistent/i.json"),
                    "cannot read EC2 instances file '/nonexistent/i.json'");
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("bad.json"), "{\"Reservations\": [}");
  EXPECT_FAILS_WITH(RunDtrain("hosts --ec2-json=" + dir.Path("bad.json")),
                    dir.Path("bad.json") + ": not valid JSON");
  EXPECT_FAILS_WITH(RunDtrain("hosts --list=a --output=/nonexistent/dir/hosts"),
                    "/nonexistent/dir/hosts");
}

}  // namespace
}  // namespace dtrain
