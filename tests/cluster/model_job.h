// Training jobs for the multi-host tests: a shipped model (models/) cut down to a short run whose
// weights can be compared exactly between ways of running it (one process, ranks across hosts),
// and the command line and data that go with it. Files go into the caller's TempDir; failures are
// gtest failures.
#pragma once

#include <string>

#include "testing/files.h"

namespace dtrain::testing {

// A shipped model's net and solver, changed as follows: training data from `train_lmdb` in
// batches of `batch` (summed over `iter_size` passes); pixels scaled to [0, 1) with no random
// mirror and no mean file (a mirror drawn per rank differs from one process's; the mean file needs
// the real dataset); weights every `snapshot` iterations (0: at the end only); a test net only
// where `test_lmdb` is given, `test_iter` batches at the end. Everything else (learning rate,
// momentum, seed) is the shipped solver's.
struct ModelJob {
  std::string net;     // under models/
  std::string solver;  // under models/
  std::string train_lmdb;
  int batch = 64;
  int iter_size = 1;
  int iterations = 50;
  int snapshot = 0;
  std::string test_lmdb;
  int test_iter = 0;
};

ModelJob LenetJob(const std::string& train_lmdb);         // models/lenet_fashion
ModelJob Cifar10QuickJob(const std::string& train_lmdb);  // models/cifar10_quick

// Writes <name>_net.prototxt and <name>_solver.prototxt into `dir`; returns the solver's path.
std::string WriteJob(const TempDir& dir, const std::string& name, const ModelJob& job);
// Where job <name> leaves its weights after `iteration` iterations.
std::string WeightsPath(const TempDir& dir, const std::string& name, int iteration);

// `dtrain train` with one compute thread, for `solver`.
std::string DtrainTrain(const std::string& solver, const std::string& flags = "");

// Copies the LMDB `from` to `to` with each iteration's records in rank order: one process that
// reads the copy with batch `batch` and iter_size `ranks` sums, in pass k, exactly the records
// that rank k of `ranks` reads from `from` (positions k, k + ranks, ...; DataLayer::SetShard), in
// the same order. `from` must hold whole iterations of ranks * batch records.
void WriteInRankOrder(const std::string& from, const std::string& to, int ranks, int batch);

}  // namespace dtrain::testing
