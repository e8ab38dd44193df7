#include "launch/launch_plan.h"

#include <gtest/gtest.h>

#include "cluster/preflight.h"
#include "cluster/shell_quote.h"
#include "cluster/shell_words.h"

namespace dtrain {
namespace {

LaunchOptions TwoHosts() {
  LaunchOptions options;
  options.hosts = {{"master", 2}, {"node1", 2}};
  options.hostfile = "/shared/hosts";
  options.dtrain = "/opt/dtrain/bin/dtrain";
  options.job = {"train", "--solver=/shared/solver.prototxt"};
  return options;
}

TEST(LaunchPlanTest, MpirunOverTheHostfileWithBindingThreadsAndInterface) {
  LaunchOptions options = TwoHosts();
  options.threads_per_rank = 8;
  options.interface = "eth0";
  options.forward_env = {"LD_LIBRARY_PATH"};
  auto plan = PlanLaunch(options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->ranks, 4);
  EXPECT_EQ(plan->master, "master");
  EXPECT_EQ(plan->first_rank, (std::vector<int>{0, 2}));
  EXPECT_EQ(FormatPlan(*plan),
            "# training\n"
            "mpirun -np 4 --hostfile /shared/hosts --map-by slot:PE=8 --bind-to core --mca "
            "btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 -x OMP_NUM_THREADS=8 -x "
            "LD_LIBRARY_PATH /opt/dtrain/bin/dtrain train --solver=/shared/solver.prototxt "
            "--threads=8\n");
}

TEST(LaunchPlanTest, DataServerOnTheMasterFirst) {
  LaunchOptions options = TwoHosts();
  options.bind = "none";
  options.np = 3;
  options.data_server = {"--source=/shared/cifar10 train", "--batch-size=100"};
  auto plan = PlanLaunch(options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->data_server_uri, "tcp://master:5555");
  EXPECT_EQ(plan->ranks_on, (std::vector<int>{2, 1}));
  EXPECT_EQ(FormatPlan(*plan),
            "# data server\n"
            "mpirun -np 1 --host master --bind-to none /opt/dtrain/bin/dtrain data-server "
            "'--source=/shared/cifar10 train' --batch-size=100 --listen=tcp://master:5555 &\n"
            "# training\n"
            "mpirun -np 3 --hostfile /shared/hosts --map-by slot --bind-to none "
            "/opt/dtrain/bin/dtrain train --solver=/shared/solver.prototxt\n");
}

// The server's --listen and the job's --threads count in every form flags.cc reads
// (cluster/job_command_line.h).
TEST(LaunchPlanTest, ListenAndThreadsInAnyForm) {
  LaunchOptions options = TwoHosts();
  options.threads_per_rank = 2;
  options.job = {"train", "--solver=/shared/solver.prototxt", "-threads=3"};
  for (const std::vector<std::string>& server :
       {std::vector<std::string>{"--listen", "tcp://other:7000"},
        std::vector<std::string>{"-listen=tcp://other:7000"}}) {
    options.data_server = server;
    auto plan = PlanLaunch(options);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_EQ(plan->data_server_uri, "tcp://other:7000");
    EXPECT_EQ(plan->steps[0].argv.back(), server.back());  // no --listen of its own added
    EXPECT_EQ(plan->steps[1].argv.back(), "-threads=3");   // no --threads of its own added
  }
}

TEST(LaunchPlanTest, SrunStepsInsideSlurm) {
  LaunchOptions options = TwoHosts();
  options.slurm = true;
  options.threads_per_rank = 4;
  options.data_server = {"--listen=tcp://master:6000", "--solver=/shared/s.prototxt"};
  auto plan = PlanLaunch(options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->data_server_uri, "tcp://master:6000");
  EXPECT_EQ(FormatPlan(*plan),
            "# data server\n"
            "srun --overlap -N1 -n1 -w master /opt/dtrain/bin/dtrain data-server "
            "--listen=tcp://master:6000 --solver=/shared/s.prototxt &\n"
            "# training\n"
            "srun --mpi=pmix --overlap -n 4 --cpus-per-task=4 --export=ALL,OMP_NUM_THREADS=4 "
            "/opt/dtrain/bin/dtrain train --solver=/shared/solver.prototxt --threads=4\n");
}

// A restart on the hosts left of an allocation names them: srun -N 1 -w node1.
TEST(LaunchPlanTest, SrunOnTheNodesLeft) {
  LaunchOptions options = TwoHosts();
  options.slurm = true;
  options.hosts = {{"node1", 2}};
  options.slurm_nodes = {"node1"};
  auto plan = PlanLaunch(options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(FormatPlan(*plan),
            "# training\n"
            "srun --mpi=pmix --overlap -n 2 -N 1 -w node1 --export=ALL "
            "/opt/dtrain/bin/dtrain train --solver=/shared/solver.prototxt\n");
}

TEST(LaunchPlanTest, RejectsImpossibleRequests) {
  LaunchOptions options = TwoHosts();
  options.np = 5;
  EXPECT_EQ(PlanLaunch(options).status().message(),
            "--np=5 is more than the 4 slots of /shared/hosts (give hosts more slots=N)");
  options = TwoHosts();
  options.job = {};
  EXPECT_EQ(PlanLaunch(options).status().message(),
            "no job: give the dtrain command after --, e.g. -- train --solver=S");
  options = TwoHosts();
  options.job = {"rm", "-rf", "/"};
  EXPECT_EQ(PlanLaunch(options).status().message(),
            "the job must be a dtrain train, test or time command, not 'rm'");
  options = TwoHosts();
  options.bind = "socket";
  EXPECT_EQ(PlanLaunch(options).status().message(), "--bind must be core or none, not 'socket'");
}

TEST(ShellWordsTest, SplitsAndQuotesLikeAShell) {
  auto words = SplitShellWords(R"(--source="/a b/c" --x='it''s' plain\ word "q\"uote")");
  ASSERT_TRUE(words.ok());
  EXPECT_EQ(*words,
            (std::vector<std::string>{"--source=/a b/c", "--x=its", "plain word", "q\"uote"}));
  EXPECT_EQ(SplitShellWords("'open").status().message(), "unterminated ' in: 'open");
  EXPECT_EQ(ShellQuote("/plain/path-1.txt"), "/plain/path-1.txt");
  EXPECT_EQ(ShellQuote("it's here"), "'it'\\''s here'");
  EXPECT_EQ(ShellQuote(""), "''");
  auto round_trip = SplitShellWords(ShellJoin({"a b", "it's", "$HOME", ""}));
  ASSERT_TRUE(round_trip.ok());
  EXPECT_EQ(*round_trip, (std::vector<std::string>{"a b", "it's", "$HOME", ""}));
}

TEST(PreflightTest, ListsEachProblem) {
  PreflightRequest request;
  request.version = "0.5.0+a";
  request.expected_version = "0.5.0+b";
  request.paths = {"/", "/nonexistent/lmdb"};
  request.interface = "nonexistent9";
  const std::vector<std::string> problems = PreflightProblems(request);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0], "dtrain version 0.5.0+a here, 0.5.0+b on the launching host");
  EXPECT_EQ(problems[1], "missing: /nonexistent/lmdb");
  EXPECT_EQ(
      problems[2].rfind("network interface 'nonexistent9' does not exist (this host has: ", 0), 0u)
      << problems[2];
  request.expected_version = request.version;
  request.paths = {"/"};
  request.interface = "lo";
  EXPECT_TRUE(PreflightProblems(request).empty());
}

}  // namespace
}  // namespace dtrain
