#include "cluster/host_sources.h"

#include <gtest/gtest.h>

namespace dtrain {
namespace {

TEST(HostSourcesTest, ListGivesHostsInOrderWithSlots) {
  auto hosts = HostsFromList("master,10.0.0.12,node2", 2);
  ASSERT_TRUE(hosts.ok()) << hosts.status().message();
  EXPECT_EQ(FormatHostfile(*hosts), "master slots=2\n10.0.0.12 slots=2\nnode2 slots=2\n");
}

TEST(HostSourcesTest, ListRejectsEmptyItemsDuplicatesAndOddNames) {
  EXPECT_EQ(HostsFromList("a,,b", 1).status().message(), "host list 'a,,b', item 2 is empty");
  EXPECT_EQ(HostsFromList("", 1).status().message(), "host list '', item 1 is empty");
  EXPECT_EQ(HostsFromList("a,b,", 1).status().message(), "host list 'a,b,', item 3 is empty");
  EXPECT_EQ(HostsFromList("a,b,a", 1).status().message(),
            "host list 'a,b,a', item 3: host 'a' is listed twice");
  EXPECT_EQ(HostsFromList("a,b c", 1).status().message(),
            "host list 'a,b c', item 2: 'b c' is not a host name or address (RFC 1123: letters, "
            "digits, '-' and '.'; or an IPv4/IPv6 address)");
  EXPECT_FALSE(HostsFromList("a,slots=2", 1).ok());
}

TEST(HostSourcesTest, SlurmNodeNamesAndCountsAreChecked) {
  SlurmEnvironment env;
  env.job_nodelist = "node\x07[1-2]";
  EXPECT_EQ(HostsFromSlurm(env, 0).status().message(),
            "SLURM_JOB_NODELIST: 'node\\x071' is not a host name or address (RFC 1123: letters, "
            "digits, '-' and '.'; or an IPv4/IPv6 address)");
  env.job_nodelist = "node[1-2]";
  env.tasks_per_node = "99999";
  EXPECT_EQ(HostsFromSlurm(env, 0).status().message(),
            "tasks for host 'node1' must be in [1, 4096] ranks per host, got 99999");
}

TEST(HostSourcesTest, SlurmNodesWithTheirTasksPerNode) {
  SlurmEnvironment env;
  env.job_nodelist = "node[01-03],login";
  env.tasks_per_node = "2(x3),1";
  auto hosts = HostsFromSlurm(env, 0);
  ASSERT_TRUE(hosts.ok()) << hosts.status().message();
  EXPECT_EQ(FormatHostfile(*hosts),
            "node01 slots=2\nnode02 slots=2\nnode03 slots=2\nlogin slots=1\n");
  env.ntasks_per_node = "4";  // --ntasks-per-node wins over the per-node counts
  EXPECT_EQ(FormatHostfile(HostsFromSlurm(env, 0).value()),
            "node01 slots=4\nnode02 slots=4\nnode03 slots=4\nlogin slots=4\n");
  EXPECT_EQ(FormatHostfile(HostsFromSlurm(env, 3).value()),  // and --slots over both
            "node01 slots=3\nnode02 slots=3\nnode03 slots=3\nlogin slots=3\n");
  env.ntasks_per_node = "3(x2),1(x2)";
  EXPECT_EQ(FormatHostfile(HostsFromSlurm(env, 0).value()),
            "node01 slots=3\nnode02 slots=3\nnode03 slots=1\nlogin slots=1\n");
  SlurmEnvironment plain;
  plain.job_nodelist = "n[1-2]";
  EXPECT_EQ(FormatHostfile(HostsFromSlurm(plain, 0).value()), "n1 slots=1\nn2 slots=1\n");
}

TEST(HostSourcesTest, SlurmErrorsSayWhichVariable) {
  EXPECT_EQ(HostsFromSlurm({}, 0).status().message(),
            "not inside a Slurm allocation (SLURM_JOB_NODELIST is not set)");
  SlurmEnvironment env;
  env.job_nodelist = "n[2-1]";
  EXPECT_EQ(HostsFromSlurm(env, 0).status().message(),
            "SLURM_JOB_NODELIST: bad Slurm node list item 'n[2-1]': range 2-1 runs backwards");
  env.job_nodelist = "";
  EXPECT_EQ(HostsFromSlurm(env, 0).status().message(), "SLURM_JOB_NODELIST is empty");
  env.job_nodelist = "n[1-2],n1";
  EXPECT_EQ(HostsFromSlurm(env, 0).status().message(),
            "SLURM_JOB_NODELIST: host 'n1' is listed twice");
  env.job_nodelist = "n[1-2]";
  env.tasks_per_node = "2(x3)";
  EXPECT_EQ(HostsFromSlurm(env, 0).status().message(),
            "SLURM_TASKS_PER_NODE: bad Slurm tasks-per-node value '2(x3)': it gives counts for 3 "
            "nodes, the job has 2");
}

}  // namespace
}  // namespace dtrain
