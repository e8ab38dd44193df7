#include "cluster/slurm_nodelist.h"

#include <gtest/gtest.h>

#include <sstream>

#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using Names = std::vector<std::string>;

Names Expand(const std::string& list) {
  auto names = ExpandSlurmNodeList(list);
  EXPECT_TRUE(names.ok()) << list << ": " << names.status().message();
  return names.ok() ? *names : Names{};
}

std::string ErrorOf(const std::string& list) {
  auto names = ExpandSlurmNodeList(list);
  EXPECT_FALSE(names.ok()) << list;
  return names.ok() ? "" : names.status().message();
}

TEST(SlurmNodeListTest, ExpandsRangesListsAndKeepsZeroPadding) {
  EXPECT_EQ(Expand("node[01-04,07]"), (Names{"node01", "node02", "node03", "node04", "node07"}));
  EXPECT_EQ(Expand("gpu-[001-003]"), (Names{"gpu-001", "gpu-002", "gpu-003"}));
  EXPECT_EQ(Expand("n[08-11]"), (Names{"n08", "n09", "n10", "n11"}));
  EXPECT_EQ(Expand("n[9-11]"), (Names{"n9", "n10", "n11"}));
  EXPECT_EQ(Expand("x[01-3]"), (Names{"x01", "x02", "x03"}));  // the width of LO counts
  EXPECT_EQ(Expand("x[1-03]"), (Names{"x1", "x2", "x3"}));
  EXPECT_EQ(Expand("n[007]"), (Names{"n007"}));
  EXPECT_EQ(Expand("[1-3]"), (Names{"1", "2", "3"}));
  EXPECT_EQ(Expand("10.0.0.[1-2]"), (Names{"10.0.0.1", "10.0.0.2"}));
}

TEST(SlurmNodeListTest, MultipliesBracketsLeftToRight) {
  EXPECT_EQ(Expand("a[1-2]-b[3-4]"), (Names{"a1-b3", "a1-b4", "a2-b3", "a2-b4"}));
  EXPECT_EQ(Expand("n[1-2][3-4]"), (Names{"n13", "n14", "n23", "n24"}));
}

TEST(SlurmNodeListTest, SeveralGroupsInOrder) {
  EXPECT_EQ(Expand("n1,m[2-3]"), (Names{"n1", "m2", "m3"}));
  EXPECT_EQ(Expand("rack[1-2]-node[01-02],login"),
            (Names{"rack1-node01", "rack1-node02", "rack2-node01", "rack2-node02", "login"}));
  EXPECT_EQ(
      Expand("queue1-st-c5n18xlarge-[1-2],queue1-dy-c5n18xlarge-3"),
      (Names{"queue1-st-c5n18xlarge-1", "queue1-st-c5n18xlarge-2", "queue1-dy-c5n18xlarge-3"}));
  EXPECT_EQ(Expand("a,,b c"), (Names{"a", "b", "c"}));  // as scontrol: empty items skipped
  EXPECT_EQ(Expand("n[1-2],n[1-2]"), (Names{"n1", "n2", "n1", "n2"}));
  EXPECT_EQ(Expand(""), Names{});
}

TEST(SlurmNodeListTest, MalformedListsQuoteTheItem) {
  EXPECT_EQ(ErrorOf("n[3-1]"), "bad Slurm node list item 'n[3-1]': range 3-1 runs backwards");
  EXPECT_EQ(ErrorOf("ok,n[1-3"), "bad Slurm node list item 'n[1-3': '[' without ']'");
  EXPECT_EQ(ErrorOf("n1-3]"), "bad Slurm node list item 'n1-3]': ']' without '['");
  EXPECT_EQ(ErrorOf("n[]"), "bad Slurm node list item 'n[]': empty brackets");
  EXPECT_EQ(ErrorOf("n[a-b]"),
            "bad Slurm node list item 'n[a-b]': 'a-b' is not a number or a range LO-HI");
  EXPECT_EQ(ErrorOf("n[1-]"),
            "bad Slurm node list item 'n[1-]': '1-' is not a number or a range LO-HI");
  EXPECT_EQ(ErrorOf("n[1-2-3]"),
            "bad Slurm node list item 'n[1-2-3]': '1-2-3' is not a number or a range LO-HI");
  EXPECT_EQ(ErrorOf("n[1,,2]"),
            "bad Slurm node list item 'n[1,,2]': '' is not a number or a range LO-HI");
  EXPECT_EQ(ErrorOf("n[1-2]x"), "bad Slurm node list item 'n[1-2]x': text 'x' after the last ']'");
  EXPECT_EQ(ErrorOf("n[[1]]"), "bad Slurm node list item 'n[[1]]': '[' without ']'");
  EXPECT_EQ(ErrorOf("n[0-65536]"),
            "bad Slurm node list item 'n[0-65536]': range 0-65536 holds more than 65536 hosts");
  EXPECT_EQ(Expand("n[0-65535]").size(), 65536u);
  EXPECT_EQ(ErrorOf("n[0-65535][0-65535]"),
            "bad Slurm node list item 'n[0-65535][0-65535]': names more than 262144 hosts");
  // Found by the fuzzer: items each within the limits that together named 2^20 hosts, more
  // memory than a node list may take. The whole list is bounded now.
  EXPECT_EQ(Expand("a[0-65535],b[0-65535],c[0-65535],d[0-65535]").size(), 262144u);
  EXPECT_EQ(ErrorOf("a[0-65535],b[0-65535],c[0-65535],d[0-65535],e1"),
            "Slurm node list names more than 262144 hosts");
}

TEST(SlurmNodeListTest, TasksPerNodeForms) {
  EXPECT_EQ(ExpandSlurmTasksPerNode("2(x3),1", 4).value(), (std::vector<int>{2, 2, 2, 1}));
  EXPECT_EQ(ExpandSlurmTasksPerNode("4", 3).value(), (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(ExpandSlurmTasksPerNode("3(x2)", 2).value(), (std::vector<int>{3, 3}));
  EXPECT_EQ(ExpandSlurmTasksPerNode("1,2,3", 3).value(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(ExpandSlurmTasksPerNode("2(x3),1", 3).status().message(),
            "bad Slurm tasks-per-node value '2(x3),1': it gives counts for 4 nodes, the job has 3");
  EXPECT_EQ(ExpandSlurmTasksPerNode("2(x3", 3).status().message(),
            "bad Slurm tasks-per-node value '2(x3': '2(x3' is not COUNT(xREPEAT)");
  EXPECT_EQ(ExpandSlurmTasksPerNode("0", 3).status().message(),
            "bad Slurm tasks-per-node value '0': '0' is not COUNT or COUNT(xREPEAT) with positive "
            "integers");
  EXPECT_FALSE(ExpandSlurmTasksPerNode("", 1).ok());
  EXPECT_FALSE(ExpandSlurmTasksPerNode("2(y3)", 3).ok());
}

// The same lists through Slurm's own parser: `scontrol show hostnames LIST` needs no controller,
// only a slurm.conf to read.
TEST(SlurmNodeListTest, AgreesWithScontrolShowHostnames) {
  if (testing::RunShell("command -v scontrol").exit_code != 0) {
    GTEST_SKIP() << "scontrol is not installed (slurm-wlm, scripts/install-deps.sh)";
  }
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("slurm.conf"),
                         "ClusterName=x\nSlurmctldHost=localhost\nNodeName=localhost CPUs=1\n"
                         "PartitionName=p Nodes=ALL\n");
  const std::vector<std::string> lists = {"node[01-04,07]",
                                          "a[1-2]-b[3-4]",
                                          "gpu-[001-003]",
                                          "n1,m[2-3]",
                                          "n[08-11]",
                                          "n[9-11]",
                                          "x[01-3]",
                                          "x[1-03]",
                                          "n[1-2][3-4]",
                                          "rack[1-2]-node[01-02],login",
                                          "n[1-2,5-6,010-012]",
                                          "10.0.0.[1-3]",
                                          "[1-3]",
                                          "a,,b",
                                          "n[1-2],n[1-2]",
                                          "q-st-c5n18xlarge-[1-4],q-dy-c5n18xlarge-[1-2]",
                                          "n[00-02]",
                                          "n[007]",
                                          "z[0-1000]"};
  for (const std::string& list : lists) {
    auto r = testing::RunShell("SLURM_CONF=" + dir.Path("slurm.conf") +
                               " scontrol show hostnames '" + list + "'");
    ASSERT_EQ(r.exit_code, 0) << list << ": " << r.output;
    std::istringstream lines(r.output);
    Names slurm;
    for (std::string line; std::getline(lines, line);) slurm.push_back(line);
    EXPECT_EQ(Expand(list), slurm) << list;
  }
  // Lists both reject.
  for (const char* list : {"n[3-1]", "n[a-b]", "n[1-2]x", "n[0-65536]", "n[1-2-3]"}) {
    auto r = testing::RunShell("SLURM_CONF=" + dir.Path("slurm.conf") +
                               " scontrol show hostnames '" + list + "'");
    EXPECT_NE(r.output.find("Invalid hostlist"), std::string::npos) << list << ": " << r.output;
    EXPECT_FALSE(ExpandSlurmNodeList(list).ok()) << list;
  }
}

}  // namespace
}  // namespace dtrain
