// The data server over loopback, in one process: the epoch split, both shipping modes against
// a Data layer reading the LMDB itself, reconnection, and hostile or mistaken peers.
#include "data/data_server.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <asio.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "data/data_server_client.h"
#include "data/datum.h"
#include "data_test_util.h"
#include "image_test_util.h"
#include "in_process_data_server.h"
#include "layers/data_layer.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::ServerUri;
using testing::StartDataServer;
using testing::TempDir;

StatusOr<std::unique_ptr<DataServerClient>> Connect(const DataServer& server,
                                                    const std::string& secret = "",
                                                    double timeout_s = 5) {
  DataServerClientOptions options;
  options.uri = ServerUri(server);
  options.secret = secret;
  options.timeout_s = timeout_s;
  options.name = "test";
  return DataServerClient::Connect(options);
}

DataServerSubscribe Subscription(int rank, int world, uint32_t batch, int64_t first = 0,
                                 uint64_t seed = 7) {
  DataServerSubscribe s;
  s.set_rank(rank);
  s.set_world_size(world);
  s.set_batch_size(batch);
  s.set_first_batch(first);
  s.set_seed(seed);
  return s;
}

// The record indices (TinyDatum label / 10) of one SHIP_RECORDS batch.
std::vector<int> RecordsOf(const ReceivedBatch& batch) {
  std::vector<int> records;
  std::string_view body = batch.body;
  for (uint32_t size : batch.meta.record_size()) {
    Datum datum;
    EXPECT_TRUE(ParseDatum(body.substr(0, size), "r", &datum).ok());
    body.remove_prefix(size);
    records.push_back(datum.label() / 10);
  }
  return records;
}

class DataServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lmdb_ = dir_.Path("db");
    testing::WriteTinyLmdb(lmdb_, 60, 3, 6, 6);
  }
  ServedData Records(uint32_t batch = 0) {
    ServedData data;
    data.source = lmdb_;
    data.batch_size = batch;
    return data;
  }
  TempDir dir_;
  std::string lmdb_;
};

TEST_F(DataServerTest, ThreeRanksGetDisjointBatchesCoveringTheEpochOnce) {
  auto server = StartDataServer(Records(5));
  ASSERT_TRUE(server);
  std::vector<std::vector<int>> seen(3);
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 3; ++rank) {
    ranks.emplace_back([&, rank] {
      auto client = Connect(*server);
      ASSERT_TRUE(client.ok()) << client.status().message();
      ASSERT_TRUE((*client)->Subscribe(Subscription(rank, 3, 5)).ok());
      ReceivedBatch batch;
      for (int k = 0; k < 4; ++k) {  // 3 ranks x 4 batches x 5 records = the 60 records
        Status s = (*client)->Next(&batch);
        ASSERT_TRUE(s.ok()) << s.message();
        EXPECT_EQ(batch.meta.index(), k);
        for (int record : RecordsOf(batch)) seen[rank].push_back(record);
      }
    });
  }
  for (auto& t : ranks) t.join();
  std::vector<int> all;
  for (int rank = 0; rank < 3; ++rank) {
    // Rank r's strided share: r, r + 3, r + 6, ...
    for (size_t i = 0; i < seen[rank].size(); ++i) EXPECT_EQ(seen[rank][i], rank + 3 * int(i));
    all.insert(all.end(), seen[rank].begin(), seen[rank].end());
  }
  std::sort(all.begin(), all.end());
  std::vector<int> expected(60);
  for (int i = 0; i < 60; ++i) expected[i] = i;
  EXPECT_EQ(all, expected);
}

// Shuffled: each epoch in a new order, still split disjointly among the ranks; the same seed gives
// the same orders.
TEST_F(DataServerTest, ShuffledEpochsAreSplitDisjointlyAndRepeatForTheSameSeed) {
  auto serve = [&](uint64_t seed) {
    ServedData data = Records(5);
    data.shuffle = true;
    data.shuffle_seed = seed;
    auto server = StartDataServer(data);
    std::vector<int> sequence;  // positions 0, 1, 2, ... over two epochs, interleaving the ranks
    std::vector<std::vector<int>> by_rank(3);
    for (int rank = 0; rank < 3; ++rank) {
      auto client = Connect(*server);
      EXPECT_TRUE(client.ok());
      EXPECT_TRUE((*client)->Subscribe(Subscription(rank, 3, 5)).ok());
      ReceivedBatch batch;
      for (int k = 0; k < 8; ++k) {
        EXPECT_TRUE((*client)->Next(&batch).ok());
        for (int r : RecordsOf(batch)) by_rank[rank].push_back(r);
      }
    }
    for (int i = 0; i < 40; ++i) {
      for (int rank = 0; rank < 3; ++rank) sequence.push_back(by_rank[rank][i]);
    }
    return sequence;
  };
  const std::vector<int> a = serve(11), b = serve(11), c = serve(12);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::vector<int> key_order(60);
  for (int i = 0; i < 60; ++i) key_order[i] = i;
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::vector<int> records(a.begin() + 60 * epoch, a.begin() + 60 * (epoch + 1));
    EXPECT_NE(records, key_order) << "epoch " << epoch;
    std::sort(records.begin(), records.end());
    EXPECT_EQ(records, key_order) << "epoch " << epoch << " holds every record once";
  }
  EXPECT_FALSE(std::equal(a.begin(), a.begin() + 60, a.begin() + 60)) << "a new order each epoch";
}

// A Data layer fed by the server produces exactly what a Data layer reading the LMDB produces,
// with random crops and mirrors, in both shipping modes and for each of 2 shards.
TEST_F(DataServerTest, ServedDataLayerMatchesLmdbDataLayer) {
  for (DataShipping shipping : {SHIP_RECORDS, SHIP_FLOATS}) {
    ServedData data = Records();
    data.shipping = shipping;
    data.transform.set_crop_size(4);
    data.transform.set_mirror(true);
    data.transform.set_scale(0.5f);
    auto server = StartDataServer(data);
    ASSERT_TRUE(server);
    for (int shard = 0; shard < 2; ++shard) {
      auto layer_for = [&](const std::string& source) {
        LayerParameter p = testing::DataLayerParam(source, 7);
        *p.mutable_transform_param() = data.transform;
        auto layer = testing::MakeLayer(p, TRAIN, 99);
        static_cast<DataLayer*>(layer.get())->SetShard(shard, 2);
        return layer;
      };
      auto local = layer_for(lmdb_);
      auto served = layer_for(ServerUri(*server));
      Tensor a_data, a_label, b_data, b_label;
      TensorVec a{&a_data, &a_label}, b{&b_data, &b_label};
      ASSERT_TRUE(local->Setup({}, a).ok());
      Status s = served->Setup({}, b);
      ASSERT_TRUE(s.ok()) << s.message();
      ASSERT_EQ(a_data.shape(), b_data.shape());
      for (int iteration = 0; iteration < 10; ++iteration) {  // wraps round the 60 records
        float loss;
        ASSERT_TRUE(local->Forward({}, a, &loss).ok());
        s = served->Forward({}, b, &loss);
        ASSERT_TRUE(s.ok()) << s.message();
        ASSERT_EQ(testing::Values(a_label), testing::Values(b_label)) << "iteration " << iteration;
        ASSERT_EQ(testing::Values(a_data), testing::Values(b_data)) << "iteration " << iteration;
      }
      // The same position (the transform stream is reseeded per record, so its state is moot).
      const std::string a_state = local->SaveState(), b_state = served->SaveState();
      EXPECT_EQ(a_state.substr(0, a_state.find('\n')), b_state.substr(0, b_state.find('\n')));
    }
  }
}

// A snapshot's data position carries over between a served and an LMDB source, both ways: the
// resumed layer produces the batch the uninterrupted one would have.
TEST_F(DataServerTest, DataPositionResumesAcrossServedAndLmdbSources) {
  auto server = StartDataServer(Records());
  ASSERT_TRUE(server);
  auto layer_for = [&](const std::string& source) {
    auto layer = testing::MakeLayer(testing::DataLayerParam(source, 4), TRAIN, 5);
    static_cast<DataLayer*>(layer.get())->SetShard(1, 2);
    return layer;
  };
  Tensor data, label;
  TensorVec top{&data, &label};
  float loss;
  for (bool from_server : {true, false}) {
    auto first = layer_for(from_server ? ServerUri(*server) : lmdb_);
    ASSERT_TRUE(first->Setup({}, top).ok());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(first->Forward({}, top, &loss).ok());
    const std::string state = first->SaveState();
    ASSERT_TRUE(first->Forward({}, top, &loss).ok());
    const std::vector<float> expected = testing::Values(label);
    auto second = layer_for(from_server ? lmdb_ : ServerUri(*server));
    ASSERT_TRUE(second->Setup({}, top).ok());
    Status s = second->RestoreState(state);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_TRUE(second->Forward({}, top, &loss).ok());
    EXPECT_EQ(testing::Values(label), expected)
        << (from_server ? "served -> LMDB" : "LMDB -> served");
    EXPECT_EQ(expected, (std::vector<float>{250, 270, 290, 310}));  // records 25, 27, 29, 31
  }
}

// A served Data layer whose server is gone is destroyed at once, not after its server_timeout:
// the prefetch thread's wait for the server is interrupted.
TEST_F(DataServerTest, ALayerWaitingForAGoneServerIsDestroyedAtOnce) {
  auto server = StartDataServer(Records());
  ASSERT_TRUE(server);
  LayerParameter p = testing::DataLayerParam(ServerUri(*server), 4);
  p.mutable_data_param()->set_server_timeout(60);
  p.mutable_data_param()->set_prefetch(1);
  auto layer = testing::MakeLayer(p, TRAIN);
  Tensor data, label;
  TensorVec top{&data, &label};
  ASSERT_TRUE(layer->Setup({}, top).ok());
  float loss;
  // With one batch read ahead and one requested ahead, batches 1 and 2 are on their way when
  // the server stops; after taking them, the prefetch thread waits for batch 3, retrying the
  // connection for up to 60 s.
  ASSERT_TRUE(layer->Forward({}, top, &loss).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  server->Stop();
  ASSERT_TRUE(layer->Forward({}, top, &loss).ok());
  ASSERT_TRUE(layer->Forward({}, top, &loss).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  layer.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

// Encoded (PNG) records: shipped as they are and decoded by the layer, or decoded and transformed
// by the server (in the layer's colour mode); either way what a Data layer reading the LMDB makes.
TEST_F(DataServerTest, EncodedRecordsServeAsTheLmdbReadsThem) {
  const std::string encoded = dir_.Path("encoded");
  {
    auto writer = LmdbWriter::Create(encoded);
    ASSERT_TRUE(writer.ok());
    for (int i = 0; i < 12; ++i) {
      Datum datum;
      datum.set_encoded(true);
      datum.set_data(testing::BgrPng(testing::GradientBgr(8, 8, i), 8, 8));
      datum.set_label(i);
      ASSERT_TRUE((*writer)->Put(RecordKey(i), datum.SerializeAsString()).ok());
    }
    ASSERT_TRUE((*writer)->Close().ok());
  }
  for (DataShipping shipping : {SHIP_RECORDS, SHIP_FLOATS}) {
    ServedData data;
    data.source = encoded;
    data.shipping = shipping;
    data.transform.set_crop_size(6);
    data.transform.set_mirror(true);
    auto server = StartDataServer(data);
    ASSERT_TRUE(server);
    auto layer_for = [&](const std::string& source) {
      LayerParameter p = testing::DataLayerParam(source, 5);
      *p.mutable_transform_param() = data.transform;
      return testing::MakeLayer(p, TRAIN, 3);
    };
    auto local = layer_for(encoded);
    auto served = layer_for(ServerUri(*server));
    Tensor a_data, a_label, b_data, b_label;
    TensorVec a{&a_data, &a_label}, b{&b_data, &b_label};
    ASSERT_TRUE(local->Setup({}, a).ok());
    ASSERT_TRUE(served->Setup({}, b).ok());
    ASSERT_EQ(b_data.shape(), (std::vector<int>{5, 3, 6, 6}));
    float loss;
    for (int iteration = 0; iteration < 4; ++iteration) {
      ASSERT_TRUE(local->Forward({}, a, &loss).ok());
      ASSERT_TRUE(served->Forward({}, b, &loss).ok());
      ASSERT_EQ(testing::Values(a_label), testing::Values(b_label));
      ASSERT_EQ(testing::Values(a_data), testing::Values(b_data)) << shipping << " " << iteration;
    }
  }
}

TEST_F(DataServerTest, ClientResumesItsSequenceAfterTheServerRestarts) {
  auto server = StartDataServer(Records(4));
  ASSERT_TRUE(server);
  const uint16_t port = server->port();
  auto client = Connect(*server);
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Subscribe(Subscription(1, 2, 4)).ok());
  ReceivedBatch batch;
  ASSERT_TRUE((*client)->Next(&batch).ok());
  ASSERT_TRUE((*client)->Next(&batch).ok());
  server->Stop();
  server.reset();
  // The server comes back a moment later on the same port; the client waits and goes on.
  std::thread restart([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    server = StartDataServer(Records(4), "", port);
  });
  std::vector<int> records;
  for (int k = 2; k < 5; ++k) {
    Status s = (*client)->Next(&batch);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(batch.meta.index(), k);
    records = RecordsOf(batch);
  }
  restart.join();
  EXPECT_GE((*client)->reconnections(), 1);
  EXPECT_EQ(records, (std::vector<int>{33, 35, 37, 39}));  // batch 4 of rank 1 of 2: (16+i)*2+1
}

TEST_F(DataServerTest, WrongOrMissingSecretIsRefused) {
  auto server = StartDataServer(Records(5), "s3cret");
  ASSERT_TRUE(server);
  auto wrong = Connect(*server, "guess");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "data server " + ServerUri(*server) +
                ": the data server refused: authentication failed: wrong shared secret "
                "(--auth-file)");
  auto none = Connect(*server, "");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "data server " + ServerUri(*server) +
                " requires a shared secret: set "
                "data_param.server_auth_file to the file given to the server's --auth-file");
  auto right = Connect(*server, "s3cret");
  ASSERT_TRUE(right.ok()) << right.status().message();
  EXPECT_EQ(server->totals().rejected, 1);
}

TEST_F(DataServerTest, MismatchedBatchSizeIsRefused) {
  auto server = StartDataServer(Records(5));
  ASSERT_TRUE(server);
  auto client = Connect(*server);
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Subscribe(Subscription(0, 1, 8)).ok());
  ReceivedBatch batch;
  Status s = (*client)->Next(&batch);
  EXPECT_EQ(
      s.message(),
      "data server " + ServerUri(*server) +
          ": the data server refused: this server "
          "serves batches of 5 records per rank; the client asks for 8 (data_param.batch_size)");
}

// Connections beyond --max-clients are closed at once; a client keeps trying until one leaves.
TEST_F(DataServerTest, ConnectionsBeyondMaxClientsAreRefused) {
  auto server = StartDataServer(Records(), "", 0, 10, /*max_clients=*/2);
  ASSERT_TRUE(server);
  auto first = Connect(*server);
  auto second = Connect(*server);
  ASSERT_TRUE(first.ok() && second.ok());
  auto third = Connect(*server, "", /*timeout_s=*/1);
  ASSERT_FALSE(third.ok());
  EXPECT_NE(third.status().message().find("did not answer within 1 s"), std::string::npos)
      << third.status().message();
  EXPECT_GE(server->totals().rejected, 1);
  first->reset();
  auto fourth = Connect(*server, "", 5);
  EXPECT_TRUE(fourth.ok()) << fourth.status().message();
}

// Subscriptions that would make the server allocate without bound or overflow are refused.
TEST_F(DataServerTest, OversizedBatchesAndPositionsAreRefused) {
  auto server = StartDataServer(Records());
  ASSERT_TRUE(server);
  ReceivedBatch batch;
  auto client = Connect(*server);
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Subscribe(Subscription(0, 1, 1u << 30)).ok());
  EXPECT_EQ((*client)->Next(&batch).message(),
            "data server " + ServerUri(*server) +
                ": the data server refused: a batch of 1073741824 "
                "records would exceed 1024 MiB");
  client = Connect(*server);
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Subscribe(Subscription(0, 2, 8, int64_t{1} << 61)).ok());
  EXPECT_EQ((*client)->Next(&batch).message(), "data server " + ServerUri(*server) +
                                                   ": the data server refused: first_batch "
                                                   "2305843009213693952 is out of range");
}

TEST(DataServerClientTest, NoServerIsATimeoutNamingTheAddress) {
  // A port nothing listens on: bind one, note it, close it.
  asio::io_context io;
  asio::ip::tcp::acceptor probe(io, {asio::ip::make_address("127.0.0.1"), 0});
  const uint16_t port = probe.local_endpoint().port();
  probe.close();
  DataServerClientOptions options;
  options.uri = "tcp://127.0.0.1:" + std::to_string(port);
  options.timeout_s = 1;
  const auto start = std::chrono::steady_clock::now();
  auto client = DataServerClient::Connect(options);
  ASSERT_FALSE(client.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(
      client.status().message().rfind(
          "data server " + options.uri + " did not answer within 1 s (data_param.server_timeout)",
          0),
      0u)
      << client.status().message();
}

TEST(DataServerClientTest, ParsesAddresses) {
  auto ok = ParseDataServerUri("tcp://master:5555");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->host, "master");
  EXPECT_EQ(ok->port, "5555");
  auto v6 = ParseDataServerUri("tcp://[::1]:80");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(ParseDataServerUri("tcp://master").status().message(),
            "bad data server address 'tcp://master' (no port); expected tcp://HOST:PORT");
  EXPECT_EQ(ParseDataServerUri("tcp://m:99999").status().message(),
            "bad data server address 'tcp://m:99999' (port must be 1-65535); expected "
            "tcp://HOST:PORT");
  EXPECT_FALSE(ParseDataServerUri("udp://m:1").ok());
}

// Hostile peers: each bad connection is closed while a well-behaved client keeps being served.
class HostilePeerTest : public DataServerTest {
 protected:
  // Connects a raw socket, reads the CHALLENGE, sends `bytes`, then reads until the server
  // closes; returns what came after the challenge.
  std::string SendRaw(const std::string& bytes, bool half_close = false) {
    asio::io_context io;
    asio::ip::tcp::socket socket(io);
    socket.connect({asio::ip::make_address("127.0.0.1"), server_->port()});
    // A server that never closes fails the test after 30 s instead of hanging it.
    const timeval limit = {30, 0};
    setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
    FrameHeaderBytes header;
    asio::read(socket, asio::buffer(header));
    auto decoded = DecodeFrameHeader(header.data(), kServerFrameLimits);
    EXPECT_TRUE(decoded.ok());
    std::string challenge(decoded->meta_length, '\0');
    asio::read(socket, asio::buffer(challenge));
    asio::write(socket, asio::buffer(bytes));
    if (half_close) socket.shutdown(asio::ip::tcp::socket::shutdown_send);
    std::string reply;
    asio::error_code ec;
    char chunk[4096];
    while (true) {
      const size_t n = socket.read_some(asio::buffer(chunk), ec);
      if (ec) break;
      reply.append(chunk, n);
    }
    return reply;
  }
  // The ERROR message in `reply`.
  static std::string ErrorIn(const std::string& reply) {
    FrameView frame;
    auto used = DecodeFrame(reply, kServerFrameLimits, &frame);
    if (!used.ok() || *used == 0 || frame.header.type != FrameType::kError) return "(no ERROR)";
    DataServerError error;
    error.ParseFromArray(frame.meta.data(), static_cast<int>(frame.meta.size()));
    return error.message();
  }
  std::unique_ptr<DataServer> server_;
};

TEST_F(HostilePeerTest, GarbageOversizedAndTruncatedFramesCloseOnlyThatConnection) {
  server_ = StartDataServer(Records(5), "", 0, /*handshake_timeout_s=*/1);
  ASSERT_TRUE(server_);
  auto good = Connect(*server_);
  ASSERT_TRUE(good.ok());
  ASSERT_TRUE((*good)->Subscribe(Subscription(0, 1, 5)).ok());
  ReceivedBatch batch;
  ASSERT_TRUE((*good)->Next(&batch).ok());

  EXPECT_EQ(ErrorIn(SendRaw("GET / HTTP/1.1\r\nHost: x\r\n\r\n")),
            "not a dtrain data-server frame (bad magic)");
  ASSERT_TRUE((*good)->Next(&batch).ok());

  FrameHeaderBytes huge = EncodeFrameHeader({FrameType::kHello, 1u << 30, 0});
  EXPECT_EQ(ErrorIn(SendRaw(std::string(huge.begin(), huge.end()))),
            "frame meta of 1073741824 bytes exceeds the limit of 4096");
  ASSERT_TRUE((*good)->Next(&batch).ok());

  FrameHeaderBytes body = EncodeFrameHeader({FrameType::kHello, 0, 100});
  EXPECT_EQ(ErrorIn(SendRaw(std::string(body.begin(), body.end()))),
            "frame body of 100 bytes exceeds the limit of 0");

  // A header promising 100 bytes of meta, then 10 bytes and silence: closed after the timeout.
  FrameHeaderBytes promise = EncodeFrameHeader({FrameType::kHello, 100, 0});
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(SendRaw(std::string(promise.begin(), promise.end()) + std::string(10, 'x')), "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // The same, but the peer hangs up half-way.
  EXPECT_EQ(SendRaw(std::string(promise.begin(), promise.end()) + std::string(10, 'x'), true), "");

  // A well-formed HELLO meta that does not parse.
  FrameHeaderBytes hello = EncodeFrameHeader({FrameType::kHello, 3, 0});
  EXPECT_EQ(ErrorIn(SendRaw(std::string(hello.begin(), hello.end()) + "\xff\xff\xff")),
            "malformed HELLO message");

  for (int k = 0; k < 3; ++k) {
    Status s = (*good)->Next(&batch);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  EXPECT_EQ((*good)->reconnections(), 0);
  EXPECT_EQ(server_->totals().rejected, 6);
}

}  // namespace
}  // namespace dtrain
