// The one parser of the dtrain command lines `dtrain launch` reads and edits.
#include "cluster/job_command_line.h"

#include <gtest/gtest.h>

namespace dtrain {
namespace {

using Words = std::vector<std::string>;

TEST(JobCommandLine, ReadsEveryFormOfAFlagAsFlagsDoes) {
  const JobCommandLine line = JobCommandLine::ParseCommand(
      {"train", "--solver=s.prototxt", "-weights", "w.caffemodel", "--global-batch", "--snapshot",
       "old.solverstate", "-iterations=40", "--verbose=false"});
  EXPECT_EQ(line.subcommand(), "train");
  EXPECT_EQ(line.Value("solver"), "s.prototxt");
  EXPECT_EQ(line.Value("weights"), "w.caffemodel");
  EXPECT_EQ(line.Value("snapshot"), "old.solverstate");
  EXPECT_EQ(line.Value("iterations"), "40");
  EXPECT_EQ(line.Value("verbose"), "false");
  EXPECT_TRUE(line.Has("global-batch"));
  EXPECT_EQ(line.Value("global-batch"), std::nullopt);  // a switch followed by a flag
  EXPECT_FALSE(line.Has("model"));
  EXPECT_EQ(line.ValueOr("model", "none"), "none");
  ASSERT_EQ(line.arguments().size(), 6u);
  EXPECT_EQ(line.arguments()[1].words, (Words{"-weights", "w.caffemodel"}));
}

TEST(JobCommandLine, TheLastOfAFlagGivenTwiceCounts) {
  const JobCommandLine line =
      JobCommandLine::ParseCommand({"train", "--solver=a", "--solver", "b", "--snapshot"});
  EXPECT_EQ(line.Value("solver"), "b");
  // A flag without a value (at the end) is there, with no value to read.
  EXPECT_TRUE(line.Has("snapshot"));
  EXPECT_EQ(line.Value("snapshot"), std::nullopt);
}

TEST(JobCommandLine, ArgumentsWithoutASubcommand) {
  const JobCommandLine server =
      JobCommandLine::ParseArguments({"--source=/lmdb", "--listen", "tcp://h:5600"});
  EXPECT_EQ(server.subcommand(), "");
  EXPECT_EQ(server.Value("listen"), "tcp://h:5600");
  EXPECT_EQ(JobCommandLine::ParseCommand({"--source=/lmdb"}).subcommand(), "");
  EXPECT_EQ(JobCommandLine::ParseCommand({}).words(), Words{});
  // A word after a bare flag is its value; one where no flag precedes is positional.
  const JobCommandLine positional = JobCommandLine::ParseArguments({"word", "--a", "-"});
  ASSERT_EQ(positional.arguments().size(), 2u);
  EXPECT_EQ(positional.arguments()[0].name, "");
  EXPECT_EQ(positional.arguments()[0].value, "word");
  EXPECT_EQ(positional.Value("a"), "-");
}

TEST(JobCommandLine, EditsKeepEveryOtherWordAsWritten) {
  const Words job = {"train",      "--solver=s",      "-weights=w",     "--global-batch",
                     "--snapshot", "old.solverstate", "-restart-count", "3"};
  JobCommandLine line = JobCommandLine::ParseCommand(job);
  EXPECT_EQ(line.words(), job);
  line.Remove("snapshot");
  line.Remove("restart-count");
  line.Remove("not-there");
  EXPECT_EQ(line.words(), (Words{"train", "--solver=s", "-weights=w", "--global-batch"}));
  line.Replace("solver", "dir/solver_%#.prototxt");
  line.Replace("threads", "4");  // none yet: appended
  line.Append("restart-reason", "a reason with spaces");
  EXPECT_EQ(line.words(),
            (Words{"train", "--solver=dir/solver_%#.prototxt", "-weights=w", "--global-batch",
                   "--threads=4", "--restart-reason=a reason with spaces"}));
  EXPECT_EQ(line.Value("restart-reason"), "a reason with spaces");
}

TEST(JobCommandLine, ReplaceChangesTheOccurrenceThatCounts) {
  JobCommandLine line = JobCommandLine::ParseCommand({"train", "--solver", "a", "--solver=b"});
  line.Replace("solver", "c");
  EXPECT_EQ(line.words(), (Words{"train", "--solver", "a", "--solver=c"}));
  EXPECT_EQ(line.Value("solver"), "c");
}

}  // namespace
}  // namespace dtrain
