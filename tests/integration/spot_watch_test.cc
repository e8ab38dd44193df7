// deploy/aws/spot-interruption-watch.sh against a stand-in for EC2's instance metadata service
// (a local HTTP server that answers IMDSv2 as EC2 does: a token, then 404 for
// spot/instance-action until an interruption is scheduled): no SIGTERM while there is no notice,
// and with one, the training on this machine snapshots and stops. EC2 itself cannot be reached
// from the tests.
#include <gtest/gtest.h>

#include <filesystem>

#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

constexpr const char* kMetadataService = R"(
import http.server, os, sys
class Service(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args): pass
    def answer(self, code, body=b""):
        self.send_response(code); self.send_header("Content-Length", str(len(body)))
        self.end_headers(); self.wfile.write(body)
    def do_PUT(self):
        ok = self.path == "/latest/api/token" and "X-aws-ec2-metadata-token-ttl-seconds" in self.headers
        self.answer(200 if ok else 400, b"token-1" if ok else b"")
    def do_GET(self):
        if self.headers.get("X-aws-ec2-metadata-token") != "token-1": return self.answer(401)
        if self.path != "/latest/meta-data/spot/instance-action": return self.answer(404)
        if not os.path.exists("notice"): return self.answer(404)
        self.answer(200, b'{"action": "terminate", "time": "2026-12-03T06:30:00Z"}')
server = http.server.HTTPServer(("127.0.0.1", 0), Service)
open("port.tmp", "w").write(str(server.server_port)); os.rename("port.tmp", "port")
server.serve_forever()
)";

TEST(SpotInterruptionWatch, ANoticeStopsTheTrainingWithASnapshot) {
  if (!std::filesystem::exists("/usr/bin/curl") || !std::filesystem::exists("/usr/bin/python3"))
    GTEST_SKIP() << "needs curl and python3";
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("imds.py"), kMetadataService);
  testing::WriteTextFile(dir.Path("solver.prototxt"), R"(
    base_lr: 0.01 lr_policy: "fixed" max_iter: 100000000 display: 0 snapshot_prefix: "spot"
    net_param {
      layer { name: "data" type: "DummyData" top: "data" top: "label"
              dummy_data_param { shape { dim: 4 dim: 8 } shape { dim: 4 }
                data_filler { type: "gaussian" } data_filler { type: "constant" value: 1 } } }
      layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
              inner_product_param { num_output: 2 weight_filler { type: "xavier" } } }
      layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
    })");
  // In a PID namespace of its own: the watcher signals every `dtrain train` it sees, and tests run
  // side by side.
  if (testing::RunShell("unshare --pid --fork --mount-proc true").exit_code != 0)
    GTEST_SKIP() << "cannot make a PID namespace here (unshare --pid needs root)";
  const std::string script =
      std::string("timeout -s KILL 60 unshare --pid --fork --mount-proc bash -c '") +
      "/usr/bin/python3 imds.py & service=$!; "
      "until [ -s port ]; do sleep 0.1; done; " +
      DTRAIN_BINARY +
      " train --solver=solver.prototxt --threads=1 > train.log 2>&1 & "
      "training=$!; "
      "until grep -q \"Starting Optimization\" train.log; do sleep 0.1; "
      "done; "
      "DTRAIN_IMDS=http://127.0.0.1:$(cat port) INTERVAL=0.2 bash " +
      DTRAIN_SOURCE_DIR +
      "/deploy/aws/spot-interruption-watch.sh > watch.log 2>&1 & watch=$!; "
      "sleep 1.5; kill -0 $training && echo training-before-the-notice; "
      "touch notice; wait $watch; echo watch=$?; wait $training; "
      "echo training=$?; kill $service; cat watch.log train.log'";
  const testing::CommandResult r = testing::RunShell(script, dir.Path(""));
  EXPECT_NE(r.output.find("training-before-the-notice"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("watch=0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("spot interruption notice: {\"action\": \"terminate\""),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("training=0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("received SIGTERM: snapshotting and stopping"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("Optimization stopped early."), std::string::npos) << r.output;
  bool snapshot = false;
  for (const auto& e : std::filesystem::directory_iterator(dir.Path("")))
    snapshot |= e.path().filename().string().rfind("spot_iter_", 0) == 0;
  EXPECT_TRUE(snapshot) << r.output;
}

}  // namespace
}  // namespace dtrain
