// `dtrain cluster ...` through the real command line: what it prints or writes, and a clear
// error with exit status 1 for each bad request.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::ReadFile;

using testing::RunDtrain;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ClusterCli, SlurmScriptRunsThisBinaryWithTheArgumentsAfterDashDash) {
  auto r = RunDtrain(
      "cluster slurm-script --nodes=2 --time=30 -- train --solver='a b.prototxt' --threads=0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "#SBATCH --nodes=2\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "#SBATCH --time=30\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, std::string("srun --mpi=pmix --kill-on-bad-exit=1 ") +
                                     DTRAIN_BINARY +
                                     " train '--solver=a b.prototxt' --threads=0\n"))
      << r.output;
  // `bash -n`: the script parses.
  testing::TempDir dir;
  r = RunDtrain("cluster slurm-script --nodes=1 --dtrain=dtrain --output=" + dir.Path("job.sh") +
                " -- train --solver=s.prototxt");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "");
  EXPECT_TRUE(Contains(ReadFile(dir.Path("job.sh")),
                       "\nsrun --mpi=pmix --kill-on-bad-exit=1 dtrain train "
                       "--solver=s.prototxt\n"));
  struct stat info;
  ASSERT_EQ(stat(dir.Path("job.sh").c_str(), &info), 0);
  EXPECT_TRUE(info.st_mode & S_IXUSR);
  EXPECT_EQ(testing::RunShell("bash -n " + dir.Path("job.sh")).exit_code, 0);
}

TEST(ClusterCli, SlurmScriptBadRequests) {
  EXPECT_FAILS_WITH(RunDtrain("cluster slurm-script -- train --solver=s"), "--nodes=N is required");
  EXPECT_FAILS_WITH(RunDtrain("cluster slurm-script --nodes=0 -- train --solver=s"),
                    "dtrain cluster slurm-script: error: --nodes must be at least 1, got 0");
  EXPECT_FAILS_WITH(RunDtrain("cluster slurm-script --nodes=x -- train --solver=s"),
                    "flag --nodes needs an integer, got 'x'");
  EXPECT_FAILS_WITH(RunDtrain("cluster slurm-script --nodes=2 --time=2h -- train --solver=s"),
                    "bad --time '2h'");
  EXPECT_FAILS_WITH(
      RunDtrain("cluster slurm-script --nodes=2 --partition='a;b' -- train --solver=s"),
      "bad --partition 'a;b'");
  EXPECT_FAILS_WITH(
      RunDtrain("cluster slurm-script --nodes=2 --job-name='a b' -- train --solver=s"),
      "bad --job-name 'a b'");
  EXPECT_FAILS_WITH(RunDtrain("cluster slurm-script --nodes=2"),
                    "give the training command after '--'");
  EXPECT_FAILS_WITH(RunDtrain("cluster slurm-script --nodes=2 train --solver=s"),
                    "unknown flag '--solver=s'");
  EXPECT_FAILS_WITH(RunDtrain("cluster slurm-script --nodes=2 -- train"), "needs --solver=S");
  EXPECT_FAILS_WITH(RunDtrain("cluster"), "dtrain cluster: needs a subcommand");
  EXPECT_FAILS_WITH(RunDtrain("cluster slurm"), "unknown subcommand 'slurm'");
  auto help = RunDtrain("cluster slurm-script --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(Contains(help.output, "--ntasks-per-node")) << help.output;
}

const std::string kAws =
    "cluster aws --nodes=4 --instance-type=c5n.18xlarge --key-name=k --subnet=subnet-0a1b2c3d "
    "--region=us-east-1 ";

TEST(ClusterCli, AwsWritesClusterYamlAndAnExecutableBootstrap) {
  testing::TempDir dir;
  auto r = RunDtrain(kAws + "--efa --bootstrap-s3=s3://b-1/boot.sh --output=" + dir.Path("aws"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "wrote " + dir.Path("aws") + "/cluster.yaml")) << r.output;
  EXPECT_TRUE(Contains(
      r.output, "note: bootstrap.sh fetches dtrain's source from s3://b-1/dtrain-src.tar.gz"))
      << r.output;
  const std::string yaml = ReadFile(dir.Path("aws/cluster.yaml"));
  EXPECT_TRUE(Contains(yaml, "          Efa:\n            Enabled: true\n")) << yaml;
  EXPECT_TRUE(Contains(yaml, "      Script: s3://b-1/boot.sh\n")) << yaml;
  struct stat info;
  ASSERT_EQ(stat(dir.Path("aws/bootstrap.sh").c_str(), &info), 0);
  EXPECT_TRUE(info.st_mode & S_IXUSR);
  EXPECT_EQ(testing::RunShell("bash -n " + dir.Path("aws/bootstrap.sh")).exit_code, 0);
  // A wrong role is refused before the script touches anything.
  r = testing::RunShell("bash " + dir.Path("aws/bootstrap.sh") + " nodes");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST(ClusterCli, AwsBadRequests) {
  testing::TempDir dir;
  const std::string out = " --output=" + dir.Path("aws");
  EXPECT_FAILS_WITH(RunDtrain("cluster aws --nodes=4" + out), "--instance-type is required");
  EXPECT_FAILS_WITH(
      RunDtrain(kAws + "--instance-type=c9.huge" + out),
      "dtrain cluster aws: error: --instance-type 'c9.huge' is not one dtrain knows; known: ");
  EXPECT_FAILS_WITH(RunDtrain(kAws + "--nodes=0" + out), "--nodes must be 1 to 1000, got 0");
  EXPECT_FAILS_WITH(RunDtrain(kAws + "--subnet=vpc-0a1b2c3d" + out), "--subnet 'vpc-0a1b2c3d'");
  EXPECT_FAILS_WITH(RunDtrain(kAws + "--region=virginia" + out),
                    "--region 'virginia': expected a region name like us-east-1");
  EXPECT_FAILS_WITH(RunDtrain(kAws + "--instance-type=c5.xlarge --efa" + out),
                    "--efa: c5.xlarge has no EFA; types with EFA: ");
  EXPECT_FAILS_WITH(RunDtrain(kAws + "--shared-storage=s3" + out), "expected efs or fsx");
  EXPECT_FAILS_WITH(RunDtrain(kAws + "--os=windows" + out), "expected ubuntu2204 or alinux2");
  EXPECT_FALSE(std::filesystem::exists(dir.Path("aws")));  // nothing written on an error
}

}  // namespace
}  // namespace dtrain
