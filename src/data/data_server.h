// DataServer: serves batches of one data set to many training ranks over TCP
// (`dtrain data-server`; protocol in docs/formats/data-server.md, usage in docs/data-server.md).
//
// One listening socket, bound only to the address it is given, and a pool of threads running
// standalone Asio; every connection is a session on its own strand, so many clients share the
// pool. A session: CHALLENGE (nonce) -> HELLO (HMAC of the nonce when a secret is set) -> WELCOME
// -> SUBSCRIBE (rank, world size, batch, first batch, seed) -> then the client grants credit with
// REQUEST frames and the server sends BATCH frames in order, making at most `queue_depth`
// batches ahead of what it has written (backpressure per client: a slow client holds at most
// that many batches in memory, and never slows the others). Batches are made on the pool
// (BatchMaker), one at a time per session.
//
// Hostile peers: at most `max_clients` connections at a time (more are closed at once, logged);
// every frame is checked against size limits before anything is allocated; the
// handshake and any frame once begun must complete within `handshake_timeout_s`, and a subscribed
// client must send something every `idle_timeout_s`; a bad frame, a wrong answer, a timeout or a
// disconnect closes that one session (with an ERROR frame saying why where possible) and is
// logged with the peer's address. Other sessions carry on.
//
// Thread-safety: Start/Stop/port/totals may be called from any one thread. Stop (or the
// destructor) closes every session and joins the pool.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"
#include "data/served_batches.h"

namespace dtrain {

struct DataServerOptions {
  std::string host = "127.0.0.1";  // the address to bind: an IP address or a resolvable name
  uint16_t port = 0;               // 0: any free port (see DataServer::port)
  int threads = 4;
  std::string secret;   // empty: any client may connect
  int queue_depth = 4;  // batches made ahead per client
  double handshake_timeout_s = 10;
  double idle_timeout_s = 3600;
  double log_interval_s = 10;  // 0: no periodic throughput lines
  int max_clients = 256;       // connections beyond this are closed at once
};

// Counts since Start, for logs, tests and benchmarks.
struct DataServerTotals {
  int64_t connections = 0;  // accepted
  int64_t rejected = 0;     // closed for a bad frame, a wrong answer or a timeout
  int64_t batches = 0;      // BATCH frames written
  int64_t bytes = 0;        // bytes written
};

class DataServer {
 public:
  // Binds, listens and starts the pool. An address that cannot be bound is an error naming it.
  static StatusOr<std::unique_ptr<DataServer>> Start(const DataServerOptions& options,
                                                     std::shared_ptr<const BatchMaker> maker);
  ~DataServer();
  DataServer(const DataServer&) = delete;
  DataServer& operator=(const DataServer&) = delete;

  // The bound port (the one the system chose when options.port was 0).
  uint16_t port() const;
  DataServerTotals totals() const;
  void Stop();

  class Impl;

 private:
  explicit DataServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dtrain
