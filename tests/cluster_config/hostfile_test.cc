#include "cluster/hostfile.h"

#include <gtest/gtest.h>

namespace dtrain {
namespace {

TEST(HostfileTest, ParsesNamesSlotsCommentsAndBlankLines) {
  auto hosts = ParseHostfile(
      "# the job\nmaster slots=2\n\n10.0.0.12   # one slot\nnode2 slots=4 max_slots=8\n", "hosts");
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
            "h.txt:2: bad slots value 'x' (an integer from 1 to 4096)");
  EXPECT_EQ(ParseHostfile("a slots=0\n", "h.txt").status().message(),
            "h.txt:1: bad slots value '0' (an integer from 1 to 4096)");
  EXPECT_EQ(ParseHostfile("a slots=9999\n", "h.txt").status().message(),
            "h.txt:1: bad slots value '9999' (an integer from 1 to 4096)");
  EXPECT_EQ(ParseHostfile("a cpus=2\n", "h.txt").status().message(),
            "h.txt:1: unknown field 'cpus=2' (expected 'HOST slots=N')");
  EXPECT_EQ(ParseHostfile("a\nb\na\n", "h.txt").status().message(),
            "h.txt:3: host 'a' is listed twice");
  EXPECT_EQ(ParseHostfile("# nothing\n", "h.txt").status().message(), "h.txt: lists no hosts");
  EXPECT_EQ(ReadHostfile("/nonexistent/hosts").status().message(),
            "cannot read hostfile '/nonexistent/hosts'");
}

// Names enter as hostfile lines, list items, Slurm node lists and EC2 addresses; each is checked
// there: bytes a host name cannot hold are refused, quoted and escaped.
TEST(HostfileTest, HostNamesMustBeRfc1123NamesOrAddresses) {
  for (const char* good : {"node01", "ip-10-0-0-12.ec2.internal", "n.example.org.", "10.0.0.12",
                           "fe80::1", "2001:db8::7", "A-1"}) {
    EXPECT_TRUE(CheckHostName(good).ok()) << good;
  }
  const std::string suffix =
      "' is not a host name or address (RFC 1123: letters, digits, '-' and '.'; or an IPv4/IPv6 "
      "address)";
  EXPECT_EQ(CheckHostName("-node").message(), "'-node" + suffix);
  EXPECT_EQ(CheckHostName("a..b").message(), "'a..b" + suffix);
  EXPECT_EQ(CheckHostName("node_1").message(), "'node_1" + suffix);
  EXPECT_EQ(CheckHostName(std::string("n\x01\x7f\xff", 4)).message(), "'n\\x01\\x7f\\xff" + suffix);
  EXPECT_EQ(CheckHostName(std::string(64, 'a')).message(), "'" + std::string(64, 'a') + suffix);
  EXPECT_FALSE(CheckHostName("").ok());
  EXPECT_FALSE(CheckHostName(std::string(127, 'a') + "." + std::string(127, 'b')).ok());
  EXPECT_EQ(ParseHostfile("good\n\x89PNG\r\x1a slots=2\n", "h.txt").status().message(),
            "h.txt:2: '\\x89PNG" + suffix);
  EXPECT_EQ(CheckSlots(9999999, "--slots").message(),
            "--slots must be in [1, 4096] ranks per host, got 9999999");
}

}  // namespace
}  // namespace dtrain
