// DataServerClient: one training rank's connection to a data server (data_server.h), used by a
// Data layer whose source is "tcp://HOST:PORT".
//
// Connect waits for the server (retrying refused connections) for up to `timeout_s`, answers its
// challenge and reads what it serves (welcome()). Subscribe starts this rank's sequence at a
// given batch; Next returns its batches in order, granting the server `window` batches of credit
// ahead of the one it returns. When the connection is lost (server restarted, network cut,
// timeout) Next reconnects, again for up to `timeout_s`, and resubscribes at the batch it was
// waiting for: the sequence goes on as if nothing happened. A refusal by the server (wrong
// secret, batch size) or a malformed frame is not retried.
//
// Blocking calls on the caller's thread (standalone Asio, run with deadlines, kept out of this
// header so that the Data layer's includers do not compile it); one thread at a
// time, except Interrupt, which any thread may call to make the blocking call in progress (and
// any later one, until the next Subscribe) return an error at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>

#include "core/status.h"
#include "data/data_server_frame.h"

namespace dtrain {

// Whether a Data layer's source names a data server rather than an LMDB.
bool IsDataServerUri(const std::string& source);

struct DataServerEndpoint {
  std::string host;
  std::string port;
};
// "tcp://HOST:PORT" (an IPv6 HOST in brackets). Errors quote the text and show the form. Port 0
// ("any free port") is valid only for a listening address.
StatusOr<DataServerEndpoint> ParseDataServerUri(const std::string& uri, bool listening = false);

struct DataServerClientOptions {
  std::string uri;
  std::string secret;     // empty: answer no challenge
  double timeout_s = 60;  // for the first connection and for every reconnection
  int window = 4;         // batches requested ahead
  std::string name;       // "host pid" for the server's log
};

struct ReceivedBatch {
  DataServerBatch meta;
  std::string body;
};

class DataServerClient {
 public:
  static StatusOr<std::unique_ptr<DataServerClient>> Connect(
      const DataServerClientOptions& options);
  ~DataServerClient();

  const DataServerWelcome& welcome() const { return welcome_; }
  const std::string& uri() const { return options_.uri; }

  // Starts this rank's sequence at `first_batch` (again, if it had started: a restart).
  Status Subscribe(const DataServerSubscribe& subscribe);
  // The next batch of the sequence, into `batch` (its buffers are reused).
  Status Next(ReceivedBatch* batch);
  // Ends a wait for the server now (a Data layer being destroyed must not wait out the timeout).
  void Interrupt();

  // Connections made after the first (for tests and logs).
  int reconnections() const { return reconnections_; }

 private:
  using Clock = std::chrono::steady_clock;
  explicit DataServerClient(const DataServerClientOptions& options);

  // Connects and shakes hands, retrying transport failures until `deadline`.
  Status Open(Clock::time_point deadline);
  Status OpenOnce(Clock::time_point deadline);
  // Sends SUBSCRIBE for next_batch_ and the first credit.
  Status SendSubscription(Clock::time_point deadline);
  Status Write(const std::string& bytes, Clock::time_point deadline);
  // Reads one frame; `body` may be null when no body is expected.
  Status ReadFrame(FrameType expected, google::protobuf::MessageLite* meta, std::string* body,
                   Clock::time_point deadline);
  // Runs the io_context until the pending operation completes or `deadline` passes (then the
  // socket is closed and the result is a timeout naming `what`).
  Status RunUntil(Clock::time_point deadline, const char* what, const std::error_code& result);
  Clock::time_point Deadline() const;
  std::string Where() const { return "data server " + options_.uri; }

  DataServerClientOptions options_;
  DataServerEndpoint endpoint_;
  struct Transport;  // Asio's io_context and socket
  std::unique_ptr<Transport> transport_;
  bool connected_ = false;
  std::atomic<bool> interrupted_{false};
  bool done_ = false;  // the pending asynchronous operation has completed
  DataServerWelcome welcome_;
  DataServerSubscribe subscription_;
  bool subscribed_ = false;
  int64_t next_batch_ = 0;
  int reconnections_ = 0;
  FrameHeaderBytes header_{};
  std::string meta_;
};

}  // namespace dtrain
