// Hostile input: work that is lost or half-written. A killed conversion leaves no LMDB where a
// finished one belongs (and the next run clears its leftovers); a missing snapshot directory is
// found before training, not after it; temporaries of killed snapshot writes are removed at the
// next start; snapshot_keep removes only the run's own snapshots; no output is written over an
// input; an output that cannot be written (a full disk) fails the run and leaves whole records.
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

// snapshot_keep removes only the run's own older snapshots: an old pair of another run with a
// higher iteration stays, and the newest snapshot this run wrote always stays.
TEST(LostWork, SnapshotKeepNeverRemovesAnotherRunsSnapshotsOrItsOwnNewest) {
  TinyRun run("snapshot_keep: 1");
  testing::WriteTextFile(run.Snap("tiny_iter_1000.caffemodel"), "an older run's weights");
  testing::WriteTextFile(run.Snap("tiny_iter_1000.solverstate"), "an older run's state");
  const auto before = testing::FilesUnder(run.dir.Path("snap"));
  const auto r = run.Train();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(run.Snap("tiny_iter_4.caffemodel")));
  EXPECT_TRUE(fs::exists(run.Snap("tiny_iter_4.solverstate")));
  EXPECT_FALSE(fs::exists(run.Snap("tiny_iter_2.caffemodel")));
  const auto after = testing::FilesUnder(run.dir.Path("snap"));
  EXPECT_EQ(after.at("tiny_iter_1000.caffemodel"), before.at("tiny_iter_1000.caffemodel"));
  EXPECT_EQ(after.at("tiny_iter_1000.solverstate"), before.at("tiny_iter_1000.solverstate"));
}

// No command writes its output over one of its inputs, by any path to it.
TEST(LostWork, AnOutputThatIsAnInputIsRefusedAndTheInputKept) {
  TinyRun run;
  ASSERT_EQ(run.Train().exit_code, 0);
  const std::string net = run.dir.Path("net.prototxt"),
                    weights = run.Snap("tiny_iter_4.caffemodel");
  fs::create_symlink(weights, run.dir.Path("link.caffemodel"));
  testing::WriteTextFile(run.dir.Path("run.png"), "Iteration 1, loss = 2\n");
  const auto before = testing::FilesUnder(run.dir.Path(""));
  const struct {
    std::string args, error;
  } cases[] = {
      {"export onnx --model=" + net + " --weights=" + weights + " --output=" + net,
       "--output=" + net + " is the --model (" + net + ")"},
      {"export onnx --model=" + net + " --weights=" + weights +
           " --output=" + run.dir.Path("link.caffemodel"),
       "is a --weights file (" + weights + ")"},
      {"plot " + run.dir.Path("run.png") + " --output=" + run.dir.Path("./run.png"),
       "is a run to plot (" + run.dir.Path("run.png") + ")"},
      {"train --solver=" + run.dir.Path("solver.prototxt") +
           " --metrics=" + run.dir.Path("solver.prototxt"),
       "--metrics=" + run.dir.Path("solver.prototxt") + " is the --solver"},
  };
  for (const auto& c : cases) {
    const testing::CommandResult r = RunDtrainWithin(120, c.args);
    EXPECT_REFUSED_WITH(r, c.error);
    EXPECT_REFUSED_WITH(r, ": dtrain never writes its output over an input; give another path");
  }
  EXPECT_EQ(testing::FilesUnder(run.dir.Path("")), before);
}

// The whole records of a TFRecord file (length, CRC, payload, CRC each) make up all of it.
bool WholeTfRecords(const std::string& bytes, int* records) {
  size_t at = 0;
  *records = 0;
  while (at + 12 <= bytes.size()) {
    uint64_t length = 0;
    for (int i = 7; i >= 0; --i) length = length << 8 | static_cast<unsigned char>(bytes[at + i]);
    if (at + 16 + length > bytes.size()) return false;
    at += 16 + length;
    ++*records;
  }
  return at == bytes.size();
}

// A full disk (here a file size limit: the same failed write(2)) under --metrics, --tensorboard
// and --timeline: an error naming the file at once, whole records only, training finished and
// snapshotted, and exit status 1 at the end.
TEST(LostWork, AnOutputThatCannotBeWrittenFailsTheRunLoudlyAndLeavesWholeRecords) {
  // 32 KiB (sh counts 512-byte blocks): above a snapshot of the tiny net, below 600 displays.
  TinyRun run;
  testing::WriteTextFile(run.dir.Path("solver.prototxt"),
                         "net: '" + run.dir.Path("net.prototxt") +
                             "' base_lr: 0.1 lr_policy: 'fixed' max_iter: 600 display: 1 "
                             "snapshot_prefix: '" +
                             run.dir.Path("snap/tiny") + "' random_seed: 5\n");
  const auto r = testing::RunShell(
      "ulimit -f 64; timeout -s KILL 120 '" + std::string(DTRAIN_BINARY) + "' train --solver=" +
      run.dir.Path("solver.prototxt") + " --metrics=" + run.dir.Path("m.jsonl") +
      " --tensorboard=" + run.dir.Path("tb") + " --timeline=" + run.dir.Path("t.json") + " 2>&1");
  EXPECT_REFUSED_WITH(r, "--metrics: cannot write the display of iteration ");
  EXPECT_NE(r.output.find(" to " + run.dir.Path("m.jsonl") +
                          ": File too large; the file ends with the last whole record before it, "
                          "and it takes no more"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("--tensorboard: cannot write the display of iteration "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("--timeline: cannot write an event to " + run.dir.Path("t.json")),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(fs::exists(run.Snap("tiny_iter_600.solverstate"))) << "training went on";
  const std::string metrics = testing::FilesUnder(run.dir.Path("")).at("m.jsonl");
  ASSERT_FALSE(metrics.empty());
  EXPECT_LE(metrics.size(), 32768u);
  EXPECT_EQ(metrics.back(), '\n') << "a torn last line";
  const std::string timeline = testing::FilesUnder(run.dir.Path("")).at("t.json");
  EXPECT_EQ(timeline.substr(timeline.size() - 3), "},\n") << "a torn event";
  for (const auto& [name, bytes] : testing::FilesUnder(run.dir.Path("tb"))) {
    int records = 0;
    EXPECT_TRUE(WholeTfRecords(bytes, &records)) << name << ": a torn record";
    EXPECT_GT(records, 10);
  }
  // A device that is always full.
  EXPECT_REFUSED_WITH(run.Train("--metrics=/dev/full"),
                      "--metrics: cannot write the display of iteration 0 to /dev/full: No space "
                      "left on device");
}

}  // namespace
}  // namespace dtrain
