#include "cluster/model_job.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/proto_io.h"
#include "data/lmdb_db.h"
#include "proto/net.pb.h"
#include "proto/solver.pb.h"

namespace dtrain::testing {

namespace {

ModelJob ShippedJob(const std::string& net, const std::string& solver,
                    const std::string& train_lmdb) {
  ModelJob job;
  job.net = net;
  job.solver = solver;
  job.train_lmdb = train_lmdb;
  return job;
}

}  // namespace

ModelJob LenetJob(const std::string& train_lmdb) {
  return ShippedJob("lenet_fashion/lenet_train_test.prototxt",
                    "lenet_fashion/lenet_solver.prototxt", train_lmdb);
}

ModelJob Cifar10QuickJob(const std::string& train_lmdb) {
  return ShippedJob("cifar10_quick/cifar10_quick_train_test.prototxt",
                    "cifar10_quick/cifar10_quick_solver.prototxt", train_lmdb);
}

std::string WriteJob(const TempDir& dir, const std::string& name, const ModelJob& job) {
  const std::string models = std::string(DTRAIN_SOURCE_DIR) + "/models/";
  NetParameter net;
  EXPECT_TRUE(ReadTextProto(models + job.net, &net).ok()) << job.net;
  for (LayerParameter& layer : *net.mutable_layer()) {
    if (layer.type() != "Data") continue;
    const bool train = layer.include_size() > 0 && layer.include(0).phase() == TRAIN;
    layer.mutable_data_param()->set_source(train || job.test_lmdb.empty() ? job.train_lmdb
                                                                          : job.test_lmdb);
    if (train) layer.mutable_data_param()->set_batch_size(job.batch);
    TransformationParameter* transform = layer.mutable_transform_param();
    transform->clear_mirror();
    transform->clear_mean_file();
    transform->set_scale(0.00390625f);
  }
  SolverParameter solver;
  EXPECT_TRUE(ReadTextProto(models + job.solver, &solver).ok()) << job.solver;
  solver.set_net(dir.Path(name + "_net.prototxt"));
  solver.set_max_iter(job.iterations);
  solver.set_iter_size(job.iter_size);
  solver.set_display(10);
  solver.set_snapshot(job.snapshot);
  solver.set_snapshot_prefix(dir.Path(name));
  solver.clear_test_iter();
  solver.set_test_interval(0);
  if (job.test_iter > 0) {
    solver.add_test_iter(job.test_iter);
    solver.set_test_interval(job.iterations);
    solver.set_test_initialization(false);
  }
  EXPECT_TRUE(WriteTextProtoAtomically(dir.Path(name + "_net.prototxt"), net).ok());
  EXPECT_TRUE(WriteTextProtoAtomically(dir.Path(name + "_solver.prototxt"), solver).ok());
  return dir.Path(name + "_solver.prototxt");
}

std::string WeightsPath(const TempDir& dir, const std::string& name, int iteration) {
  return dir.Path(name + "_iter_" + std::to_string(iteration) + ".caffemodel");
}

std::string DtrainTrain(const std::string& solver, const std::string& flags) {
  return std::string("'") + DTRAIN_BINARY + "' train --threads=1 " + flags + " --solver=" + solver;
}

void WriteInRankOrder(const std::string& from, const std::string& to, int ranks, int batch) {
  auto reader = LmdbReader::Open(from);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  std::vector<std::string> records;
  ASSERT_TRUE((*reader)->SeekToFirst().ok());
  for (int64_t i = 0; i < (*reader)->Count(); ++i) {
    records.emplace_back((*reader)->value());
    ASSERT_TRUE((*reader)->Next().ok());
  }
  const size_t per_iteration = static_cast<size_t>(ranks) * batch;
  ASSERT_EQ(records.size() % per_iteration, 0u) << from;
  auto writer = LmdbWriter::Create(to);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  int64_t key = 0;
  for (size_t first = 0; first < records.size(); first += per_iteration) {
    for (int rank = 0; rank < ranks; ++rank) {
      for (int j = 0; j < batch; ++j) {
        ASSERT_TRUE((*writer)->Put(RecordKey(key++), records[first + rank + j * ranks]).ok());
      }
    }
  }
  const Status closed = (*writer)->Close();
  ASSERT_TRUE(closed.ok()) << closed.message();
}

}  // namespace dtrain::testing
