// `dtrain data-server` and tcp:// Data sources through the real command line: bad flags and
// unreachable servers fail with the exact cause; a served training run ends cleanly.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "data/data_test_util.h"
#include "data/lmdb_db.h"
#include "proto/annotation.pb.h"
#include "testing/layer_test_util.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::RunDtrain;
using testing::WriteTextFile;

// `dtrain data-server ARGS` started in the background, its output going to `log`.
struct ServerProcess {
  int pid = 0;
  std::string port;  // as the server printed it; empty if it printed none within 5 s
};

ServerProcess StartServerProcess(const std::string& args, const std::string& log) {
  ServerProcess server;
  const std::string command =
      std::string("'") + DTRAIN_BINARY + "' data-server " + args + " > " + log + " 2>&1 & echo $!";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return server;
  if (fscanf(pipe, "%d", &server.pid) != 1) server.pid = 0;
  pclose(pipe);
  // The port the server chose, from its first stdout line.
  for (int i = 0; i < 100 && server.port.empty(); ++i) {
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("listening on tcp://127.0.0.1:", 0) == 0)
        server.port = line.substr(line.rfind(':') + 1);
    }
    if (server.port.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return server;
}

// SIGTERM, then a wait of up to 5 s for the process to end.
void StopServerProcess(int pid) {
  if (pid <= 0) return;
  kill(pid, SIGTERM);
  for (int i = 0; i < 100 && kill(pid, 0) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(DataServerCli, BadFlagsNameTheProblem) {
  testing::TempDir dir;
  testing::WriteTinyLmdb(dir.Path("db"), 4, 1, 2, 2);
  EXPECT_FAILS_WITH(RunDtrain("data-server --source=" + dir.Path("db")),
                    "--listen=tcp://ADDRESS:PORT is required");
  EXPECT_FAILS_WITH(RunDtrain("data-server --listen=localhost:5 --source=" + dir.Path("db")),
                    "bad data server address 'localhost:5' (no tcp:// prefix)");
  EXPECT_FAILS_WITH(RunDtrain("data-server --listen=tcp://127.0.0.1:0 --source=" + dir.Path("db")),
                    "--source needs --batch-size");
  EXPECT_FAILS_WITH(RunDtrain("data-server --listen=tcp://127.0.0.1:0 --batch-size=2 --source=" +
                              dir.Path("nothing")),
                    "LMDB '" + dir.Path("nothing") + "'");
  EXPECT_FAILS_WITH(RunDtrain("data-server --listen=tcp://127.0.0.1:0 --batch-size=2 --ship=json "
                              "--source=" +
                              dir.Path("db")),
                    "--ship must be records or floats, not 'json'");
  EXPECT_FAILS_WITH(RunDtrain("data-server --listen=tcp://127.0.0.1:0 --batch-size=2 --source=" +
                              dir.Path("db") + " --auth-file=" + dir.Path("no_secret")),
                    "cannot read the shared-secret file '" + dir.Path("no_secret") + "'");
  // Binding only what is given: an address this machine does not have cannot be bound.
  EXPECT_FAILS_WITH(RunDtrain("data-server --listen=tcp://192.0.2.1:5555 --batch-size=2 --source=" +
                              dir.Path("db")),
                    "cannot listen on 192.0.2.1:5555");
  WriteTextFile(dir.Path("solver.prototxt"),
                "net_param { layer { name: 'in' type: 'Input' top: 'x' input_param { shape { dim: "
                "1 } } } }\n");
  EXPECT_FAILS_WITH(
      RunDtrain("data-server --listen=tcp://127.0.0.1:0 --solver=" + dir.Path("solver.prototxt")),
      "the TRAIN net of '" + dir.Path("solver.prototxt") +
          "' has no Data, AnnotatedData or BoxData layer");
}

TEST(DataServerCli, ATrainingRankWithoutItsServerFailsNamingTheAddress) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"), R"(
    layer { name: "feed" type: "Data" top: "data" top: "label"
            data_param { source: "tcp://127.0.0.1:9" batch_size: 4 server_timeout: 1 } }
    layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 2 } }
    layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" })");
  WriteTextFile(
      dir.Path("solver.prototxt"),
      "net: '" + dir.Path("net.prototxt") + "'\nbase_lr: 0.1\nmax_iter: 2\nlr_policy: 'fixed'\n");
  auto r = RunDtrain("train --solver=" + dir.Path("solver.prototxt"));
  EXPECT_FAILS_WITH(r,
                    "layer 'feed' (Data): data server tcp://127.0.0.1:9 did not answer within 1 s "
                    "(data_param.server_timeout); last error: ");
}

// The whole path through the binaries: a server process, a training process fed by it, and the
// server's log of what it served.
TEST(DataServerCli, TrainsFromAServerProcessAndLogsTheClient) {
  testing::TempDir dir;
  testing::WriteTinyLmdb(dir.Path("db"), 16, 1, 2, 2);  // labels 0, 10, .. 150
  const std::string log = dir.Path("server.log");
  const ServerProcess server = StartServerProcess(
      "--listen=tcp://127.0.0.1:0 --batch-size=4 --source=" + dir.Path("db"), log);
  const std::string& port = server.port;
  ASSERT_FALSE(port.empty());
  WriteTextFile(dir.Path("net.prototxt"), R"(
    layer { name: "feed" type: "Data" top: "data" top: "label"
            data_param { source: "tcp://127.0.0.1:)" +
                                              port + R"(" batch_size: 4 } }
    layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 160 } }
    layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" })");
  WriteTextFile(dir.Path("solver.prototxt"),
                "net: '" + dir.Path("net.prototxt") +
                    "'\nbase_lr: 0.01\nmax_iter: 8\nlr_policy: 'fixed'\n"
                    "snapshot_prefix: '" +
                    dir.Path("m") + "'\n");
  auto r = RunDtrain("train --solver=" + dir.Path("solver.prototxt"));
  StopServerProcess(server.pid);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir.Path("m_iter_8.caffemodel"))) << r.output;
  const std::string served = ReadFile(log);
  EXPECT_NE(served.find("rank 0 of 1, batches of 4 from batch 0"), std::string::npos) << served;
  EXPECT_NE(served.find("data server: served "), std::string::npos) << served;
}

// An AnnotatedDatum of a 3 x 4 gray image (pixels i, i + 1, ...) with one box.
std::string AnnotatedRecord(int i) {
  AnnotatedDatum record;
  Datum* datum = record.mutable_datum();
  datum->set_channels(1);
  datum->set_height(3);
  datum->set_width(4);
  std::string pixels(12, '\0');
  for (int j = 0; j < 12; ++j) pixels[j] = static_cast<char>(i + j);
  datum->set_data(pixels);
  record.set_type(AnnotatedDatum::BBOX);
  AnnotationGroup* group = record.add_annotation_group();
  group->set_group_label(1 + i % 2);
  NormalizedBBox* box = group->add_annotation()->mutable_bbox();
  box->set_xmin(0.1f * i);
  box->set_ymin(0.2f);
  box->set_xmax(0.5f + 0.1f * i);
  box->set_ymax(0.9f);
  return record.SerializeAsString();
}

// --solver of a net whose TRAIN data layer is AnnotatedData serves its LMDB as records (floats
// are refused by name), and an AnnotatedData layer reading the server gets what the LMDB gives.
TEST(DataServerCli, ServesAnAnnotatedDataLayersRecords) {
  testing::TempDir dir;
  {
    auto writer = LmdbWriter::Create(dir.Path("db"));
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*writer)->Put(RecordKey(i), AnnotatedRecord(i)).ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  const std::string feed =
      "name: 'feed' type: 'AnnotatedData' top: 'data' top: 'label' include { phase: TRAIN } "
      "transform_param { mirror: true } data_param { batch_size: 2 source: '";
  WriteTextFile(dir.Path("solver.prototxt"),
                "net_param { layer { " + feed + dir.Path("db") + "' } } }\nbase_lr: 0.1\n");
  const std::string solver = dir.Path("solver.prototxt");
  EXPECT_FAILS_WITH(
      RunDtrain("data-server --listen=tcp://127.0.0.1:0 --ship=floats --solver=" + solver),
      "--ship=floats serves transformed Datums, which layer 'feed' (AnnotatedData) of '" + solver +
          "' cannot read (it reads the records' boxes itself); use --ship=records");

  const std::string log = dir.Path("server.log");
  const ServerProcess server =
      StartServerProcess("--listen=tcp://127.0.0.1:0 --solver=" + solver, log);
  ASSERT_FALSE(server.port.empty()) << ReadFile(log);
  auto local = testing::MakeLayer(feed + dir.Path("db") + "' }", TRAIN, 4);
  auto served = testing::MakeLayer(feed + "tcp://127.0.0.1:" + server.port + "' }", TRAIN, 4);
  ASSERT_TRUE(local && served);
  Tensor a_data, a_label, b_data, b_label;
  TensorVec a{&a_data, &a_label}, b{&b_data, &b_label};
  ASSERT_TRUE(local->Setup({}, a).ok());
  const Status set_up = served->Setup({}, b);
  ASSERT_TRUE(set_up.ok()) << set_up.message();
  for (int k = 0; k < 3; ++k) {  // two epochs of the 3 records
    ASSERT_TRUE(local->Forward({}, a, nullptr).ok());
    const Status s = served->Forward({}, b, nullptr);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(testing::Values(a_data), testing::Values(b_data)) << "batch " << k;
    EXPECT_EQ(testing::Values(a_label), testing::Values(b_label)) << "batch " << k;
  }
  served.reset();
  StopServerProcess(server.pid);
  EXPECT_NE(ReadFile(log).find("(3 records, records)"), std::string::npos) << ReadFile(log);
}

}  // namespace
}  // namespace dtrain
