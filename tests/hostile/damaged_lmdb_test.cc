// Hostile input: damaged LMDBs. Blocks of random bytes written into
// a data.mdb at seeded places make every reader stop with a message naming the LMDB (and the
// record where one is known), exit status 1, whether the damage is caught by liblmdb's checks,
// by the Datum checks, or only by liblmdb faulting on a broken page. An empty data.mdb is named
// as such.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "data/data_test_util.h"
#include "hostile/hostile.h"
#include "testing/trainable_data.h"

namespace dtrain {
namespace {

namespace fs = std::filesystem;

using testing::RunDtrainWithin;
using testing::TempDir;

// Overwrites `blocks` blocks of 4096 random bytes at random offsets of `file`, from `seed`.
void Damage(const std::string& file, unsigned seed, int blocks) {
  std::mt19937 rng(seed);
  const auto size = static_cast<uint64_t>(fs::file_size(file));
  std::fstream out(file, std::ios::in | std::ios::out | std::ios::binary);
  for (int b = 0; b < blocks; ++b) {
    out.seekp(static_cast<std::streamoff>(rng() % (size - 4096)));
    std::vector<char> bytes(4096);
    for (char& c : bytes) c = static_cast<char>(rng());
    out.write(bytes.data(), bytes.size());
  }
}

TEST(DamagedLmdb, EveryReaderStopsNamingTheLmdbNeverBySignal) {
  TempDir dir;
  const std::string clean = dir.Path("clean_lmdb");
  testing::WriteTrainableLmdb(clean, 3000, 1, 28, 10);
  int refused = 0, faults = 0;
  unsigned faulting_seed = 0;
  for (unsigned seed = 1; seed <= 24; ++seed) {
    const std::string damaged = dir.Path("damaged_" + std::to_string(seed));
    fs::copy(clean, damaged);
    Damage(damaged + "/data.mdb", seed, 4);
    // compute-mean reads every record once.
    const auto r = RunDtrainWithin(60, "compute-mean " + damaged + " " + damaged + ".binaryproto");
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1)
        << "seed " << seed << ": exit " << r.exit_code << " (a signal or a hang)\n"
        << r.output;
    if (r.exit_code == 1) {
      ++refused;
      EXPECT_NE(r.output.find("LMDB '" + damaged + "'"), std::string::npos)
          << "seed " << seed << "\n"
          << r.output;
      EXPECT_FALSE(fs::exists(damaged + ".binaryproto")) << "seed " << seed;
    }
    if (r.output.find("is damaged: liblmdb crashed") != std::string::npos) {
      ++faults;
      if (!faulting_seed) faulting_seed = seed;
    }
    fs::remove_all(damaged);
  }
  std::cout << refused << " of 24 damaged copies refused, " << faults
            << " of them after liblmdb faulted\n";
  EXPECT_GT(refused, 12);
  ASSERT_GT(faults, 0) << "the fault path must be exercised";

  // The same damage met by training, on the Data layer's prefetch thread.
  const std::string damaged = dir.Path("train_lmdb");
  fs::copy(clean, damaged);
  Damage(damaged + "/data.mdb", faulting_seed, 4);
  testing::WriteTextFile(
      dir.Path("net.prototxt"),
      "layer { name: 'data' type: 'Data' top: 'x' top: 'label' data_param { source: '" + damaged +
          "' batch_size: 64 backend: LMDB } }\n"
          "layer { name: 'fc' type: 'InnerProduct' bottom: 'x' top: 'y' inner_product_param { "
          "num_output: 10 } }\n"
          "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'y' bottom: 'label' top: 'l' }\n");
  testing::WriteTextFile(dir.Path("solver.prototxt"),
                         "net: '" + dir.Path("net.prototxt") +
                             "' base_lr: 0.01 max_iter: 100 "
                             "lr_policy: 'fixed' snapshot_after_train: false\n");
  const auto r = RunDtrainWithin(120, "train --solver=" + dir.Path("solver.prototxt"));
  EXPECT_REFUSED_WITH(r, "LMDB '" + damaged + "'");
}

TEST(DamagedLmdb, AnEmptyDataFileIsNamedAsEmpty) {
  TempDir dir;
  fs::create_directories(dir.Path("empty_lmdb"));
  testing::WriteFile(dir.Path("empty_lmdb/data.mdb"), {});
  EXPECT_REFUSED_WITH(
      RunDtrainWithin(60, "compute-mean " + dir.Path("empty_lmdb") + " " + dir.Path("m")),
      "LMDB '" + dir.Path("empty_lmdb") +
          "': data.mdb is empty (0 bytes): the conversion that "
          "wrote it did not finish, or a copy of it failed");
}

}  // namespace
}  // namespace dtrain
