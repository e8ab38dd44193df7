// `dtrain train --tensorboard=DIR`, read back by TensorBoard's own EventAccumulator
// (tests/tools/tensorboard_check.py, in .venv-oracles from scripts/install-test-oracles.sh):
// every scalar of a 2-rank run (one process where MPI is missing) equals the metrics file's.
// The framing itself: CRC-32C's published check values.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "report/tfrecord.h"
#include "testing/data_parallel_job.h"
#include "testing/files.h"
#include "testing/mpi_jobs.h"
#include "testing/run_command.h"
#include "testing/trainable_data.h"

namespace dtrain {
namespace {

const std::string kOraclePython = std::string(DTRAIN_SOURCE_DIR) + "/.venv-oracles/bin/python";

TEST(TfRecord, Crc32cMatchesItsCheckValuesAndRecordsAreFramedAsTensorFlowFramesThem) {
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);  // the CRC catalogue's check value
  const std::string zeros(32, '\0');
  EXPECT_EQ(Crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);  // RFC 3720, B.4
  const std::string record = FrameTfRecord("abc");
  ASSERT_EQ(record.size(), 8u + 4 + 3 + 4);
  EXPECT_EQ(record.substr(0, 8), std::string("\x03\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(record.substr(12, 3), "abc");
  const uint32_t crc = Crc32c("abc", 3);
  const uint32_t masked = ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
  uint32_t stored = 0;
  for (int i = 3; i >= 0; --i) stored = stored << 8 | static_cast<unsigned char>(record[15 + i]);
  EXPECT_EQ(stored, masked);
}

TEST(TensorBoard, EveryScalarOfARunReadsBackAsInTheMetricsFile) {
  if (!std::filesystem::exists(kOraclePython))
    GTEST_SKIP() << "no test oracles: run scripts/install-test-oracles.sh";
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 128, 1, 12, 10);
  testing::WriteJob(dir, "run", 16, 40, "", "test_iter: 2 test_interval: 20");
  const bool mpi = testing::WhyNoMpiJobs().empty();
  const std::string dtrain = std::string(DTRAIN_BINARY) +
                             " train --threads=1 --solver=" + dir.Path("run_solver.prototxt") +
                             " --metrics=" + dir.Path("metrics.jsonl") +
                             " --tensorboard=" + dir.Path("tb/run");
  const std::string command =
      (mpi ? "mpirun --allow-run-as-root --oversubscribe --timeout 100 -np 2 --mca "
             "mpi_yield_when_idle 1 -x OMP_NUM_THREADS=1 "
           : "") +
      dtrain + " 2>&1";
  const testing::CommandResult trained = testing::RunShell(command);
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  // Both ranks ran, one wrote: a single event file.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.Path("tb/run")))
    files += e.path().filename().string().find("tfevents") != std::string::npos;
  EXPECT_EQ(files, 1);
  const testing::CommandResult check = testing::RunShell(
      kOraclePython + " " + DTRAIN_SOURCE_DIR + "/tests/tools/tensorboard_check.py " +
      dir.Path("tb/run") + " " + dir.Path("metrics.jsonl") + " 2>&1");
  EXPECT_EQ(check.exit_code, 0) << check.output;
  for (const char* tag : {"ok train/loss", "ok train/learning_rate", "ok train/images_per_second",
                          "ok test/accuracy"})
    EXPECT_NE(check.output.find(tag), std::string::npos) << tag << "\n" << check.output;
  if (mpi) {
    EXPECT_NE(check.output.find("ok train/communication_wait_share"), std::string::npos)
        << check.output;
  }
  std::cout << "TensorBoard's EventAccumulator on a " << (mpi ? 2 : 1) << "-rank run:\n"
            << check.output;
}

}  // namespace
}  // namespace dtrain
