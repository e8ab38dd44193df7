// HDF5 snapshots carry the checksums and the pairing of binary ones, as root-group attributes
// that Caffe ignores: written by dtrain and verified on reading, absent from Caffe's files
// (which still read and resume), and checked by the latest-snapshot finder.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "solver/hdf5_snapshot.h"
#include "solver/latest_snapshot.h"
#include "solver/solver.h"
#include "testing/files.h"
#include "testing/run_command.h"
#include "testing/tiny_solver.h"

namespace dtrain {
namespace {

using testing::TempDir;

void Python(const std::string& code) {
  TempDir dir;
  testing::WriteTextFile(dir.Path("script.py"), "import h5py, numpy as np\n" + code);
  const auto r = testing::RunShell("/usr/bin/python3 " + dir.Path("script.py") + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output << "\n" << code;
}

std::string StripAttributes(const std::string& path) {
  return "with h5py.File('" + path +
         "', 'r+') as f:\n"
         "  for a in list(f.attrs): del f.attrs[a]\n";
}

// Trains a small net for 12 iterations with HDF5 snapshots at 4, 8 and 12 under dir/run.
void WriteThreeSnapshots(const TempDir& dir, const std::string& extra = "") {
  const SolverParameter param =
      testing::TinySolver("max_iter: 12 snapshot: 4 snapshot_format: HDF5 snapshot_prefix: '" +
                          dir.Path("run") + "' " + extra);
  auto solver = CreateSolver(param);
  ASSERT_TRUE(solver.ok()) << solver.status().message();
  const Status trained = (*solver)->Step(12);
  ASSERT_TRUE(trained.ok()) << trained.message();
}

TEST(Hdf5SnapshotChecksum, WrittenSealedAndVerifiedOnReading) {
  TempDir dir;
  NetParameter weights;
  LayerParameter* layer = weights.add_layer();
  layer->set_name("fc");
  BlobProto* blob = layer->add_blobs();
  blob->mutable_shape()->add_dim(2);
  blob->mutable_shape()->add_dim(3);
  for (int i = 0; i < 6; ++i) blob->add_data(0.5f * i);
  uint64_t checksum = 0;
  ASSERT_TRUE(WriteWeightsHdf5(weights, dir.Path("w.caffemodel.h5"), &checksum).ok());
  auto read = ReadWeightsHdf5(dir.Path("w.caffemodel.h5"));
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->dtrain_checksum(), checksum);
  EXPECT_NE(checksum, 0u);

  SolverState state;
  state.set_iter(3);
  state.set_learned_net(dir.Path("w.caffemodel.h5"));
  state.set_dtrain_learned_net_checksum(checksum);
  *state.add_history() = *blob;
  ASSERT_TRUE(WriteSolverStateHdf5(state, dir.Path("s.solverstate.h5")).ok());
  auto state_read = ReadSolverStateHdf5(dir.Path("s.solverstate.h5"));
  ASSERT_TRUE(state_read.ok()) << state_read.status().message();
  EXPECT_EQ(state_read->dtrain_learned_net_checksum(), checksum);
  EXPECT_EQ(state_read->iter(), 3);

  // The attributes as h5py (and so Caffe's HDF5 reader, which ignores them) sees them.
  Python("with h5py.File('" + dir.Path("w.caffemodel.h5") +
         "', 'r') as f:\n"
         "  assert int(f.attrs['dtrain_checksum']) == " +
         std::to_string(checksum) +
         ", f.attrs['dtrain_checksum']\n"
         "  assert list(f['data/fc/0'][0]) == [0, 0.5, 1]\n"
         "with h5py.File('" +
         dir.Path("s.solverstate.h5") +
         "', 'r') as f:\n"
         "  assert int(f.attrs['dtrain_learned_net_checksum']) == " +
         std::to_string(checksum) + "\n");

  // One value changed: the reader refuses the file.
  Python("with h5py.File('" + dir.Path("w.caffemodel.h5") +
         "', 'r+') as f:\n"
         "  f['data/fc/0'][0, 1] = 0.25\n");
  EXPECT_EQ(ReadWeightsHdf5(dir.Path("w.caffemodel.h5")).status().message(),
            dir.Path("w.caffemodel.h5") +
                ": its contents do not match the checksum written with them: the file was "
                "damaged after it was written (a bad disk, an incomplete copy?)");
  // Without the attribute, as Caffe writes it, the file is taken as it is.
  Python(StripAttributes(dir.Path("w.caffemodel.h5")));
  read = ReadWeightsHdf5(dir.Path("w.caffemodel.h5"));
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_FALSE(read->has_dtrain_checksum());
  EXPECT_EQ(read->layer(0).blobs(0).data(1), 0.25f);
}

TEST(Hdf5SnapshotChecksum, CaffesFilesWithoutChecksumsStillResume) {
  TempDir dir;
  WriteThreeSnapshots(dir);
  for (const char* name : {"run_iter_12.caffemodel.h5", "run_iter_12.solverstate.h5"}) {
    Python(StripAttributes(dir.Path(name)));
  }
  const SnapshotChoice choice = FindLatestCompleteSnapshot(dir.Path("run"));
  EXPECT_EQ(choice.solverstate, dir.Path("run_iter_12.solverstate.h5"));
  EXPECT_TRUE(choice.passed_over.empty());
  auto solver = CreateSolver(testing::TinySolver(
      "max_iter: 16 snapshot_format: HDF5 snapshot_prefix: '" + dir.Path("again") + "'"));
  ASSERT_TRUE(solver.ok()) << solver.status().message();
  const Status restored = (*solver)->Restore(choice.solverstate);
  EXPECT_TRUE(restored.ok()) << restored.message();
}

TEST(Hdf5SnapshotChecksum, TheFinderPassesOverDamagedAndMismatchedHdf5Pairs) {
  TempDir dir, other;
  WriteThreeSnapshots(dir);
  WriteThreeSnapshots(other, "momentum: 0.9");
  // 12: a weight changed after the write; 8: another run's weights beside the state.
  Python("with h5py.File('" + dir.Path("run_iter_12.caffemodel.h5") +
         "', 'r+') as f:\n"
         "  name = [k for k in f['data'] if len(f['data'][k])][0]\n"
         "  d = f['data'][name]['0']; v = d[...]; v.flat[0] += 1; d[...] = v\n");
  std::filesystem::copy_file(other.Path("run_iter_8.caffemodel.h5"),
                             dir.Path("run_iter_8.caffemodel.h5"),
                             std::filesystem::copy_options::overwrite_existing);
  const SnapshotChoice choice = FindLatestCompleteSnapshot(dir.Path("run"));
  EXPECT_EQ(choice.solverstate, dir.Path("run_iter_4.solverstate.h5"));
  ASSERT_EQ(choice.passed_over.size(), 2u);
  EXPECT_EQ(choice.passed_over[0], dir.Path("run_iter_12.solverstate.h5") +
                                       ": its weights: " + dir.Path("run_iter_12.caffemodel.h5") +
                                       ": its contents do not match the checksum written with "
                                       "them: the file was damaged after it was written (a bad "
                                       "disk, an incomplete copy?)");
  EXPECT_EQ(choice.passed_over[1], dir.Path("run_iter_8.solverstate.h5") + ": its weights " +
                                       dir.Path("run_iter_8.caffemodel.h5") +
                                       " are not the ones written with it");
}

}  // namespace
}  // namespace dtrain
