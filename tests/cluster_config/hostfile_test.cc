#include "cluster/hostfile.h"

#include <gtest/gtest.h>

namespace dtrain {
namespace {

TEST(HostfileTest, ParsesNamesSlotsCommentsAndBlankLines) {
  auto hosts = ParseHostfile("# the job\nmaster slots=2\n\n10.0.0.12   # one slot\nnode2 slots=4 max_slots=8\n",
                             "hosts");
  ASSERT_TRUE(hosts.ok()) << hosts.status().message();
  ASSERT_EQ(hosts->size(), 3u);
  EXPECT_EQ((*hosts)[0].name, "master");
  EXPECT_EQ((*hosts)[0].slots, 2);
  EXPECT_EQ((*hosts)[1].name, "10.0.0.12");
  EXPECT_EQ((*hosts)[1].slots, 1);
  EXPECT_EQ((*hosts)[2].slots, 4);
  EXPECT_EQ(TotalSlots(*hosts), 7);
  EXPECT_EQ(FormatHostfile(*hosts), "master slots=2\n10.0.0.12 slots=1\nnode2 slots=4\n");
}

TEST(HostfileTest, ErrorsNameFileAndLine) {
  EXPECT_EQ(ParseHostfile("a\nb slots=x\n", "h.txt").status().message(),
            "h.txt:2: bad slots value 'x' (a positive integer)");
  EXPECT_EQ(ParseHostfile("a slots=0\n", "h.txt").status().message(),
            "h.txt:1: bad slots value '0' (a positive integer)");
  EXPECT_EQ(ParseHostfile("a cpus=2\n", "h.txt").status().message(),
            "h.txt:1: unknown field 'cpus=2' (expected 'HOST slots=N')");
  EXPECT_EQ(ParseHostfile("a\nb\na\n", "h.txt").status().message(),
            "h.txt:3: host 'a' is listed twice");
  EXPECT_EQ(ParseHostfile("# nothing\n", "h.txt").status().message(), "h.txt: lists no hosts");
  EXPECT_EQ(ReadHostfile("/nonexistent/hosts").status().message(),
            "cannot read hostfile '/nonexistent/hosts'");
}

}  // namespace
}  // namespace dtrain
