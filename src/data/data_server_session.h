// DataServerSession: one client connection of a DataServer (data_server.h has the protocol
// summary). Created by the server's accept loop, it lives as long as an operation of its own holds
// it (shared_ptr); every handler runs on the strand of its socket's executor, so its state needs
// no lock. Batch making runs on the server's pool, one batch at a time per session.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "data/data_server.h"

namespace dtrain {

// What sessions share with their server; outlives every session.
struct DataServerShared {
  DataServerOptions options;
  std::shared_ptr<const BatchMaker> maker;
  asio::io_context* io = nullptr;  // the pool batches are made on
  std::atomic<int64_t> connections{0};
  std::atomic<int64_t> rejected{0};
  std::atomic<int64_t> batches{0};
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> clients_now{0};
};

class DataServerSession : public std::enable_shared_from_this<DataServerSession> {
 public:
  DataServerSession(asio::ip::tcp::socket socket, DataServerShared* shared);
  ~DataServerSession();

  // Sends the CHALLENGE and reads the HELLO. Call once, right after accepting.
  void Start();
  // Closes the connection (from any thread).
  void Close(const std::string& reason);

 private:
  enum class Stage { kHello, kSubscribe, kStreaming };

  // Reads one frame: the header must arrive within `wait_s`, the rest within the handshake
  // timeout once it has begun.
  void ReadFrame(double wait_s);
  void OnFrame(FrameType type, const std::string& meta);
  Status OnHello(FrameType type, const std::string& meta);
  Status OnSubscribe(FrameType type, const std::string& meta);
  Status OnRequest(FrameType type, const std::string& meta);
  // Starts making the next batch when credit and the queue allow.
  void MakeMore();
  void OnMade(int64_t index, StatusOr<OutgoingFrame> frame);
  void Send(OutgoingFrame frame);
  void WriteNext();
  // Sends an ERROR frame saying `status`, logs it and closes once it is written.
  void Reject(const Status& status);
  void CloseNow(const std::string& reason);
  // Arms the read timer: when it fires, the session closes saying `what`.
  void ArmTimer(double seconds, std::string what);

  asio::ip::tcp::socket socket_;
  asio::steady_timer timer_;
  DataServerShared* shared_;
  std::string peer_;    // "address:port"
  std::string client_;  // "host pid", from the HELLO
  std::string nonce_;
  Stage stage_ = Stage::kHello;
  FrameHeaderBytes header_{};
  std::string meta_;
  DataServerSubscribe subscription_;
  std::unique_ptr<DataTransformer> transformer_;
  int64_t next_to_make_ = 0;
  int64_t until_ = 0;  // credit: batches with index < until_ may be sent
  bool making_ = false;
  std::deque<OutgoingFrame> outbox_;  // front() is being written when writing_
  bool writing_ = false;
  bool rejected_ = false;  // an ERROR frame is queued; close once it is written
  std::string reject_reason_;
  bool closed_ = false;
  int64_t batches_ = 0;
  int64_t bytes_ = 0;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace dtrain
