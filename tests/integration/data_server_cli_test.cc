// `dtrain data-server` and tcp:// Data sources through the real command line: bad flags and
// unreachable servers fail with the exact cause; a served training run ends cleanly.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "data/data_test_util.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::RunDtrain;
using testing::WriteTextFile;

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
      "the TRAIN net of '" + dir.Path("solver.prototxt") + "' has no Data layer");
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
  const std::string command =
      std::string("'") + DTRAIN_BINARY +
      "' data-server --listen=tcp://127.0.0.1:0 --batch-size=4 --source=" + dir.Path("db") + " > " +
      log + " 2>&1 & echo $!";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_TRUE(pipe);
  int pid = 0;
  ASSERT_EQ(fscanf(pipe, "%d", &pid), 1);
  pclose(pipe);
  // The port the server chose, from its first stdout line.
  std::string port;
  for (int i = 0; i < 100 && port.empty(); ++i) {
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("listening on tcp://127.0.0.1:", 0) == 0)
        port = line.substr(line.rfind(':') + 1);
    }
    if (port.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
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
  kill(pid, SIGTERM);
  for (int i = 0; i < 100 && kill(pid, 0) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir.Path("m_iter_8.caffemodel"))) << r.output;
  std::ifstream in(log);
  const std::string served((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(served.find("rank 0 of 1, batches of 4 from batch 0"), std::string::npos) << served;
  EXPECT_NE(served.find("data server: served "), std::string::npos) << served;
}

}  // namespace
}  // namespace dtrain
