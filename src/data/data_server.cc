#include "data/data_server.h"

#include <algorithm>
#include <asio.hpp>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "core/logging.h"
#include "data/data_server_session.h"

namespace dtrain {

class DataServer::Impl {
 public:
  explicit Impl(const DataServerOptions& options, std::shared_ptr<const BatchMaker> maker)
      : acceptor_(io_), log_timer_(io_) {
    shared_.options = options;
    shared_.maker = std::move(maker);
    shared_.io = &io_;
  }
  ~Impl() { Stop(); }

  Status Listen() {
    const DataServerOptions& options = shared_.options;
    const std::string where = options.host + ":" + std::to_string(options.port);
    asio::error_code ec;
    asio::ip::tcp::resolver resolver(io_);
    // Numeric addresses stay as given; a name resolves to its addresses and the first is bound.
    const auto endpoints = resolver.resolve(options.host, std::to_string(options.port),
                                            asio::ip::tcp::resolver::passive, ec);
    if (ec || endpoints.empty()) {
      return InvalidArgument("cannot resolve the listen address '" + options.host +
                             "': " + ec.message());
    }
    const asio::ip::tcp::endpoint endpoint = endpoints.begin()->endpoint();
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return IoError("cannot listen on " + where + ": " + ec.message());
    port_ = acceptor_.local_endpoint().port();
    return Status::Ok();
  }

  void Run() {
    Accept();
    if (shared_.options.log_interval_s > 0) ScheduleLog();
    const int threads = std::max(1, shared_.options.threads);
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { io_.run(); });
  }

  void Stop() {
    std::lock_guard<std::mutex> lock(stop_mutex_);
    if (stopped_) return;
    stopped_ = true;
    asio::post(io_, [this] {
      asio::error_code ec;
      acceptor_.close(ec);
      log_timer_.cancel();
      std::lock_guard<std::mutex> sessions_lock(sessions_mutex_);
      for (auto& weak : sessions_) {
        if (auto session = weak.lock()) session->Close("server stopping");
      }
    });
    // Sessions close on their strands; wait for them, then let the pool go.
    for (int i = 0; i < 500 && shared_.clients_now > 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    io_.stop();
    for (auto& thread : threads_) thread.join();
    threads_.clear();
  }

  uint16_t port() const { return port_; }

  DataServerTotals totals() const {
    return {shared_.connections.load(), shared_.rejected.load(), shared_.batches.load(),
            shared_.bytes.load()};
  }

 private:
  void Accept() {
    acceptor_.async_accept(
        asio::make_strand(io_), [this](asio::error_code ec, asio::ip::tcp::socket socket) {
          if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
          if (!ec && shared_.clients_now >= shared_.options.max_clients) {
            asio::error_code ignored;
            DT_LOG(WARNING) << "data server: refusing a connection from "
                            << socket.remote_endpoint(ignored).address().to_string() << ": already "
                            << shared_.options.max_clients << " clients (--max-clients)";
            ++shared_.rejected;
            socket.close(ignored);
          } else if (!ec) {
            auto session = std::make_shared<DataServerSession>(std::move(socket), &shared_);
            {
              std::lock_guard<std::mutex> lock(sessions_mutex_);
              // Forget the sessions that have ended.
              sessions_.erase(std::remove_if(sessions_.begin(), sessions_.end(),
                                             [](const auto& weak) { return weak.expired(); }),
                              sessions_.end());
              sessions_.push_back(session);
            }
            session->Start();
          } else {
            DT_LOG(WARNING) << "data server: accept failed: " << ec.message();
          }
          Accept();
        });
  }

  // Every log_interval_s: clients, batches/s and MB/s over the interval, when anything moved.
  void ScheduleLog() {
    log_timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(shared_.options.log_interval_s)));
    log_timer_.async_wait([this](asio::error_code ec) {
      if (ec) return;
      const DataServerTotals now = totals();
      if (now.batches != logged_.batches) {
        const double seconds = shared_.options.log_interval_s;
        char line[160];
        std::snprintf(line, sizeof(line), "data server: %lld clients, %.1f batches/s, %.1f MB/s",
                      static_cast<long long>(shared_.clients_now.load()),
                      (now.batches - logged_.batches) / seconds,
                      (now.bytes - logged_.bytes) / seconds / 1e6);
        DT_LOG(INFO) << line;
      }
      logged_ = now;
      ScheduleLog();
    });
  }

  DataServerShared shared_;  // before io_: sessions, destroyed with io_, point at it
  asio::io_context io_;
  asio::ip::tcp::acceptor acceptor_;
  asio::steady_timer log_timer_;
  uint16_t port_ = 0;
  std::vector<std::thread> threads_;
  std::mutex sessions_mutex_;
  std::vector<std::weak_ptr<DataServerSession>> sessions_;
  std::mutex stop_mutex_;
  bool stopped_ = false;
  DataServerTotals logged_;
};

StatusOr<std::unique_ptr<DataServer>> DataServer::Start(const DataServerOptions& options,
                                                        std::shared_ptr<const BatchMaker> maker) {
  auto impl = std::make_unique<Impl>(options, std::move(maker));
  DT_RETURN_IF_ERROR(impl->Listen());
  impl->Run();
  return std::unique_ptr<DataServer>(new DataServer(std::move(impl)));
}

DataServer::DataServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DataServer::~DataServer() = default;
uint16_t DataServer::port() const { return impl_->port(); }
DataServerTotals DataServer::totals() const { return impl_->totals(); }
void DataServer::Stop() { impl_->Stop(); }

}  // namespace dtrain
