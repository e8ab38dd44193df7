// ServedRecordSource over an in-process data server: a shard's positions streamed on one
// connection, any other position read by subscribing afresh, both giving the LMDB's own bytes;
// a server of float batches and a batch that does not add up refused.
#include "data/served_record_source.h"

#include <gtest/gtest.h>

#include <asio.hpp>
#include <memory>
#include <string>
#include <thread>

#include "data/data_server_frame.h"
#include "data/lmdb_record_source.h"
#include "data/shared_secret.h"
#include "data_test_util.h"
#include "in_process_data_server.h"

namespace dtrain {
namespace {

using testing::ServerUri;
using testing::StartDataServer;

class ServedRecordSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lmdb_path_ = dir_.Path("db");
    testing::WriteTinyLmdb(lmdb_path_, 10, 1, 2, 2);
    auto lmdb = LmdbRecordSource::Open(lmdb_path_, 0, false, 0);
    ASSERT_TRUE(lmdb.ok()) << lmdb.status().message();
    lmdb_ = std::move(lmdb).value();
  }
  StatusOr<std::unique_ptr<ServedRecordSource>> Open(const DataServer& server, int batch_size) {
    return Open(ServerUri(server), batch_size);
  }
  StatusOr<std::unique_ptr<ServedRecordSource>> Open(const std::string& uri, int batch_size) {
    DataServerClientOptions options;
    options.uri = uri;
    options.timeout_s = 5;
    options.window = 2;
    options.name = "test";
    DT_ASSIGN_OR_RETURN(std::unique_ptr<DataServerClient> client,
                        DataServerClient::Connect(options));
    return ServedRecordSource::Create(std::move(client), batch_size, "TestLayer");
  }
  // The served record at `position` is the LMDB's.
  void ExpectLmdbRecordAt(ServedRecordSource* served, int64_t position) {
    Status s = served->ReadAt(position);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_TRUE(lmdb_->ReadAt(position).ok());
    EXPECT_EQ(served->value(), lmdb_->value()) << "position " << position;
    EXPECT_EQ(served->key(), "position " + std::to_string(position));
  }

  testing::TempDir dir_;
  std::string lmdb_path_;
  std::unique_ptr<LmdbRecordSource> lmdb_;
};

TEST_F(ServedRecordSourceTest, StreamsAShardsPositionsOnOneConnection) {
  auto server = StartDataServer(testing::ServedRecords(lmdb_path_));
  ASSERT_TRUE(server);
  auto served = Open(*server, 3);
  ASSERT_TRUE(served.ok()) << served.status().message();
  EXPECT_EQ((*served)->RecordCount(), 10);
  (*served)->ExpectShard(1, 2);
  // Positions 1, 3, ..., 39: four epochs of the 10 records, in batches of 3 of shard 1 of 2.
  for (int64_t position = 1; position < 40; position += 2) {
    ExpectLmdbRecordAt(served->get(), position);
  }
  EXPECT_EQ((*served)->where_record(),
            "data server " + ServerUri(*server) + ": record 'position 39'");
  EXPECT_EQ(server->totals().connections, 1);
}

TEST_F(ServedRecordSourceTest, AnyOtherPositionSubscribesAfresh) {
  auto server = StartDataServer(testing::ServedRecords(lmdb_path_));
  ASSERT_TRUE(server);
  auto served = Open(*server, 4);
  ASSERT_TRUE(served.ok()) << served.status().message();
  (*served)->ExpectShard(0, 3);
  // Further on, earlier, another shard's, within the batch held, and a new shard count.
  for (int64_t position : {0, 3, 30, 6, 7, 8, 33, 31}) ExpectLmdbRecordAt(served->get(), position);
  (*served)->ExpectShard(0, 1);
  for (int64_t position : {5, 6, 7, 8, 9, 10, 11}) ExpectLmdbRecordAt(served->get(), position);
}

TEST_F(ServedRecordSourceTest, AServerOfFloatBatchesIsRefused) {
  ServedData floats = testing::ServedRecords(lmdb_path_);
  floats.shipping = SHIP_FLOATS;
  auto server = StartDataServer(floats);
  ASSERT_TRUE(server);
  auto served = Open(*server, 4);
  ASSERT_FALSE(served.ok());
  EXPECT_EQ(served.status().message(),
            "data server " + ServerUri(*server) +
                " ships float batches (Datums transformed by the server: --ship=floats, the "
                "default of --solver for a Data layer), which TestLayer cannot read; start the "
                "server with --ship=records");
}

// One frame read off a raw socket: its type and meta.
FrameType ReadRawFrame(asio::ip::tcp::socket& socket, std::string* meta) {
  FrameHeaderBytes header;
  asio::read(socket, asio::buffer(header));
  auto decoded = DecodeFrameHeader(header.data(), kClientFrameLimits);
  EXPECT_TRUE(decoded.ok()) << decoded.status().message();
  meta->resize(decoded.ok() ? decoded->meta_length : 0);
  asio::read(socket, asio::buffer(*meta));
  return decoded.ok() ? decoded->type : FrameType::kError;
}

// A peer that speaks the protocol but sends a batch whose record sizes do not add up to its body:
// an error naming the server, not a read past the body.
TEST_F(ServedRecordSourceTest, ABatchWhoseRecordsDoNotAddUpIsAnError) {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
  const std::string uri = "tcp://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());
  std::thread peer([&] {
    asio::ip::tcp::socket socket(io);
    acceptor.accept(socket);
    DataServerChallenge challenge;
    challenge.set_nonce(std::string(kNonceBytes, 'n'));
    asio::write(socket, asio::buffer(EncodeFrame(FrameType::kChallenge, challenge)));
    std::string meta;
    EXPECT_EQ(ReadRawFrame(socket, &meta), FrameType::kHello);
    DataServerWelcome welcome;
    welcome.set_shipping(SHIP_RECORDS);
    welcome.set_record_count(4);
    asio::write(socket, asio::buffer(EncodeFrame(FrameType::kWelcome, welcome)));
    EXPECT_EQ(ReadRawFrame(socket, &meta), FrameType::kSubscribe);
    EXPECT_EQ(ReadRawFrame(socket, &meta), FrameType::kRequest);
    DataServerBatch batch;
    batch.set_index(0);
    batch.set_first_position(0);
    batch.add_record_size(5);
    batch.add_record_size(5);
    asio::write(socket, asio::buffer(EncodeFrame(FrameType::kBatch, batch, "1234567")));
    // Until the client hangs up.
    asio::error_code ec;
    char byte;
    while (!ec) socket.read_some(asio::buffer(&byte, 1), ec);
  });
  {
    auto served = Open(uri, 2);
    ASSERT_TRUE(served.ok()) << served.status().message();
    const Status s = (*served)->ReadAt(0);
    EXPECT_EQ(s.code(), StatusCode::kDataLoss);
    EXPECT_EQ(s.message(),
              "data server " + uri + " sent a batch whose records add up to 10 bytes, not its 7");
  }
  peer.join();
}

}  // namespace
}  // namespace dtrain
