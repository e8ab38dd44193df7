// `dtrain cluster slurm-script` end to end: the script it writes, submitted with `sbatch --wait`
// to a Slurm cluster on two network-namespace hosts (SlurmCluster), trains LeNet on both hosts
// with srun --mpi=pmix and leaves its weights, as on a real cluster. Root only; runs serially with
// the other MultiHost tests (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "cluster/model_job.h"
#include "cluster/netns_cluster.h"
#include "cluster/slurm_cluster.h"
#include "testing/files.h"
#include "testing/run_command.h"
#include "testing/trainable_data.h"

namespace dtrain {
namespace {

using testing::ReadFile;

using testing::CommandResult;
using testing::NetnsCluster;
using testing::RunShell;
using testing::SlurmCluster;

constexpr int kSlurmScriptCluster = 30;  // cluster ids 1..29 belong to other MultiHost tests

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(MultiHostSlurmScript, SbatchOfTheGeneratedScriptTrainsOnTwoHosts) {
  std::string why = NetnsCluster::Unavailable();
  if (!why.empty()) GTEST_SKIP() << "no network-namespace cluster here: " << why;
  why = SlurmCluster::Unavailable();
  if (!why.empty()) GTEST_SKIP() << "no Slurm here: " << why;
  if (RunShell("command -v sbatch").exit_code != 0) GTEST_SKIP() << "sbatch is not installed";
  testing::TempDir dir;
  NetnsCluster cluster(kSlurmScriptCluster, 2);
  ASSERT_TRUE(cluster.ok()) << cluster.up_output();
  SlurmCluster slurm(cluster);
  ASSERT_TRUE(slurm.ok()) << slurm.up_output();

  testing::WriteTrainableLmdb(dir.Path("lmdb"), 128, 1, 28, 10);
  testing::ModelJob job = testing::LenetJob(dir.Path("lmdb"));
  job.batch = 16;
  job.iterations = 6;
  const std::string solver = testing::WriteJob(dir, "sbatch", job);
  CommandResult r = testing::RunDtrain(
      "cluster slurm-script --nodes=2 --ntasks-per-node=1 --time=5 --partition=main "
      "--job-name=lenet-e2e --log=train-%j.log --output=" +
      dir.Path("job.sh") + " -- train --threads=1 --solver=" + solver);
  ASSERT_EQ(r.exit_code, 0) << r.output;

  r = RunShell(slurm.Sbatch("--wait job.sh", 180), dir.Path(""));
  std::string log;
  for (const auto& entry : std::filesystem::directory_iterator(dir.Path(""))) {
    if (entry.path().extension() == ".log") log += ReadFile(entry.path().string());
  }
  ASSERT_EQ(r.exit_code, 0) << r.output << "\njob log:\n"
                            << log << "\nscript:\n"
                            << ReadFile(dir.Path("job.sh"));
  EXPECT_TRUE(Contains(r.output, "Submitted batch job")) << r.output;
  EXPECT_TRUE(Contains(log, "dtrain: Slurm job ")) << log;
  EXPECT_TRUE(Contains(log, " on " + cluster.prefix() + "[0-1]: 2 rank(s)")) << log;
  EXPECT_TRUE(Contains(log, "this is rank 0 of 2 (host " + cluster.Host(0) + ",")) << log;
  EXPECT_TRUE(Contains(log, "Optimization Done")) << log;
  EXPECT_TRUE(std::filesystem::exists(testing::WeightsPath(dir, "sbatch", job.iterations))) << log;
  std::cout << "sbatch --wait of `dtrain cluster slurm-script --nodes=2`: exit 0, log:\n" << log;
}

}  // namespace
}  // namespace dtrain
