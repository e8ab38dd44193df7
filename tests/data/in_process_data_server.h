// A data server in the test's own process, on a free loopback port: what the data server's tests
// and the tests of layers fed by it start.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "data/data_server.h"

namespace dtrain::testing {

// Serves `data` on 127.0.0.1 (port 0: any free one) with 2 threads and no throughput lines;
// null, with a test failure, if it cannot.
inline std::unique_ptr<DataServer> StartDataServer(const ServedData& data,
                                                   const std::string& secret = "",
                                                   uint16_t port = 0,
                                                   double handshake_timeout_s = 10,
                                                   int max_clients = 256) {
  auto maker = BatchMaker::Open(data);
  EXPECT_TRUE(maker.ok()) << maker.status().message();
  if (!maker.ok()) return nullptr;
  DataServerOptions options;
  options.port = port;
  options.threads = 2;
  options.secret = secret;
  options.handshake_timeout_s = handshake_timeout_s;
  options.max_clients = max_clients;
  options.log_interval_s = 0;
  auto server = DataServer::Start(options, std::shared_ptr<const BatchMaker>(std::move(*maker)));
  EXPECT_TRUE(server.ok()) << server.status().message();
  return server.ok() ? std::move(*server) : nullptr;
}

// "tcp://127.0.0.1:PORT", what a layer's data_param.source names.
inline std::string ServerUri(const DataServer& server) {
  return "tcp://127.0.0.1:" + std::to_string(server.port());
}

// The LMDB at `source` served as records, any per-rank batch.
inline ServedData ServedRecords(const std::string& source) {
  ServedData data;
  data.source = source;
  data.shipping = SHIP_RECORDS;
  return data;
}

}  // namespace dtrain::testing
