// Hostile input, class 4 of issue 14: work that is lost or half-written. A killed conversion
// leaves no LMDB where a finished one belongs (and the next run clears its leftovers); a missing
// snapshot directory is found before training, not after it; temporaries of killed snapshot
// writes are removed at the next start.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "data/data_test_util.h"
#include "data/lmdb_db.h"
#include "hostile/hostile.h"

namespace dtrain {
namespace {

namespace fs = std::filesystem;

using testing::RunDtrainWithin;
using testing::RunShell;
using testing::TempDir;
using testing::TinyRun;

// The id of a process that has ended.
std::string DeadPid() {
  std::string pid = RunShell("sh -c 'echo $$'").output;
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == '\r')) pid.pop_back();
  return pid;
}

// IDX files of `count` 28 x 28 images and their labels.
void WriteIdx(const TempDir& dir, int count) {
  std::vector<uint8_t> images = {0,
                                 0,
                                 8,
                                 3,
                                 static_cast<uint8_t>(count >> 24),
                                 static_cast<uint8_t>(count >> 16),
                                 static_cast<uint8_t>(count >> 8),
                                 static_cast<uint8_t>(count),
                                 0,
                                 0,
                                 0,
                                 28,
                                 0,
                                 0,
                                 0,
                                 28};
  std::vector<uint8_t> labels = {0, 0, 8, 1, images[4], images[5], images[6], images[7]};
  for (int i = 0; i < count; ++i) {
    for (int p = 0; p < 28 * 28; ++p) images.push_back(static_cast<uint8_t>(i + p));
    labels.push_back(static_cast<uint8_t>(i % 10));
  }
  testing::WriteFile(dir.Path("images"), images);
  testing::WriteFile(dir.Path("labels"), labels);
}

TEST(LostWork, AKilledConversionLeavesNoLmdbAndTheNextRunClearsItsLeftovers) {
  TempDir dir;
  WriteIdx(dir, 30000);
  const std::string convert =
      "convert mnist " + dir.Path("images") + " " + dir.Path("labels") + " " + dir.Path("out_lmdb");
  // Killed (SIGKILL) as soon as it reports its first 10000 records written: the output exists
  // only if the conversion finished meanwhile (it may be killed after its rename, before it
  // exits), and then holds every record, never a part.
  const auto killed =
      RunShell("cd '" + dir.Path("") + "'; '" + std::string(DTRAIN_BINARY) + "' " + convert +
               " > log 2>&1 & pid=$!; for i in $(seq 2000); do "
               "grep -q 'Processed 10000' log && break; sleep 0.005; done; "
               "kill -9 $pid; wait $pid; echo \"exit $?\"; cat log");
  EXPECT_NE(killed.output.find("Processed 10000"), std::string::npos) << killed.output;
  if (fs::exists(dir.Path("out_lmdb"))) {
    auto written = LmdbReader::Open(dir.Path("out_lmdb"));
    ASSERT_TRUE(written.ok()) << written.status().message();
    EXPECT_EQ((*written)->Count(), 30000) << killed.output;
    written->reset();
    fs::remove_all(dir.Path("out_lmdb"));
  }
  // A leftover of a killed run beside the output, as the kill above may have left one.
  const std::string stale = dir.Path(".out_lmdb.partial." + DeadPid());
  fs::create_directories(stale);
  const auto r = RunDtrainWithin(120, convert);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir.Path("out_lmdb/data.mdb")));
  for (const auto& entry : fs::directory_iterator(dir.Path(""))) {
    EXPECT_EQ(entry.path().filename().string().find(".partial."), std::string::npos)
        << entry.path() << " was left behind";
  }
  EXPECT_NE(r.output.find("left by a conversion that did not finish"), std::string::npos)
      << r.output;
}

TEST(LostWork, AMissingSnapshotDirectoryIsFoundBeforeTraining) {
  TinyRun run;
  fs::remove_all(run.dir.Path("snap"));
  const auto r = run.Train();
  EXPECT_REFUSED_WITH(r, "cannot write snapshots to '" + run.dir.Path("snap") +
                             "' (snapshot_prefix '" + run.dir.Path("snap/tiny") +
                             "'): No such file or directory; create the directory or change "
                             "snapshot_prefix");
  EXPECT_EQ(r.output.find("Iteration 0"), std::string::npos) << "refused before training";
}

TEST(LostWork, TemporariesOfKilledSnapshotWritesAreRemovedAtStart) {
  TinyRun run;
  const std::string dead = run.Snap("tiny_iter_2.caffemodel.tmp-" + DeadPid());
  const std::string alive = run.Snap("tiny_iter_2.solverstate.tmp-" + std::to_string(getpid()));
  const std::string other = run.Snap("notes.tmp-" + DeadPid());  // not a snapshot's
  for (const std::string& path : {dead, alive, other}) testing::WriteFile(path, {1, 2, 3});
  const auto r = run.Train();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(alive)) << "a running writer's file is its own";
  EXPECT_TRUE(fs::exists(other));
  EXPECT_NE(r.output.find("Removed '" + dead + "', left by a snapshot write that did not finish"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace dtrain
