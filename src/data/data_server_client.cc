#include "data/data_server_client.h"

#include <asio.hpp>
#include <thread>

#include "core/logging.h"
#include "data/shared_secret.h"

namespace dtrain {

bool IsDataServerUri(const std::string& source) { return source.rfind("tcp://", 0) == 0; }

StatusOr<DataServerEndpoint> ParseDataServerUri(const std::string& uri, bool listening) {
  auto bad = [&uri](const std::string& why) {
    return InvalidArgument("bad data server address '" + uri + "' (" + why +
                           "); expected tcp://HOST:PORT");
  };
  if (!IsDataServerUri(uri)) return bad("no tcp:// prefix");
  const std::string rest = uri.substr(6);
  DataServerEndpoint endpoint;
  size_t colon;
  if (!rest.empty() && rest[0] == '[') {  // [IPv6]:port
    const size_t close = rest.find(']');
    if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':') {
      return bad("unclosed [IPv6] address");
    }
    endpoint.host = rest.substr(1, close - 1);
    colon = close + 1;
  } else {
    colon = rest.rfind(':');
    if (colon == std::string::npos) return bad("no port");
    endpoint.host = rest.substr(0, colon);
  }
  endpoint.port = rest.substr(colon + 1);
  if (endpoint.host.empty()) return bad("no host");
  if (endpoint.port.empty() || endpoint.port.size() > 5 ||
      endpoint.port.find_first_not_of("0123456789") != std::string::npos ||
      (std::stoi(endpoint.port) == 0 && !listening) || std::stoi(endpoint.port) > 65535) {
    return bad(listening ? "port must be 0-65535" : "port must be 1-65535");
  }
  return endpoint;
}

struct DataServerClient::Transport {
  asio::io_context io;
  asio::ip::tcp::socket socket{io};
};

DataServerClient::DataServerClient(const DataServerClientOptions& options)
    : options_(options), transport_(new Transport()) {}

DataServerClient::~DataServerClient() {
  asio::error_code ec;
  transport_->socket.close(ec);
}

StatusOr<std::unique_ptr<DataServerClient>> DataServerClient::Connect(
    const DataServerClientOptions& options) {
  std::unique_ptr<DataServerClient> client(new DataServerClient(options));
  DT_ASSIGN_OR_RETURN(client->endpoint_, ParseDataServerUri(options.uri));
  DT_RETURN_IF_ERROR(client->Open(client->Deadline()));
  return client;
}

DataServerClient::Clock::time_point DataServerClient::Deadline() const {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(options_.timeout_s));
}

void DataServerClient::Interrupt() {
  interrupted_ = true;
  // Run by the blocked thread's io_context: closing the socket ends its pending operation.
  asio::post(transport_->io, [this] {
    asio::error_code ignored;
    transport_->socket.close(ignored);
  });
}

Status DataServerClient::RunUntil(Clock::time_point deadline, const char* what,
                                  const asio::error_code& result) {
  transport_->io.restart();
  if (!interrupted_) transport_->io.run_until(deadline);
  if (interrupted_) {
    if (!done_) {
      asio::error_code ignored;
      transport_->socket.close(ignored);
      transport_->io.restart();
      transport_->io.run();
    }
    connected_ = false;
    return Status(StatusCode::kInternal, Where() + ": interrupted");
  }
  if (!done_) {  // timed out: cancel the operation and let its handler run
    asio::error_code ignored;
    transport_->socket.close(ignored);
    transport_->io.restart();
    transport_->io.run();
    connected_ = false;
    return IoError(Where() + ": timed out " + what);
  }
  if (result) {
    connected_ = false;
    return IoError(Where() + ": " + what + ": " + result.message());
  }
  return Status::Ok();
}

Status DataServerClient::Write(const std::string& bytes, Clock::time_point deadline) {
  asio::error_code result;
  done_ = false;
  asio::async_write(transport_->socket, asio::buffer(bytes),
                    [this, &result](asio::error_code ec, size_t) {
                      result = ec;
                      done_ = true;
                    });
  return RunUntil(deadline, "sending", result);
}

Status DataServerClient::ReadFrame(FrameType expected, google::protobuf::MessageLite* meta,
                                   std::string* body, Clock::time_point deadline) {
  asio::error_code result;
  done_ = false;
  asio::async_read(transport_->socket, asio::buffer(header_),
                   [this, &result](asio::error_code ec, size_t) {
                     result = ec;
                     done_ = true;
                   });
  DT_RETURN_IF_ERROR(RunUntil(deadline, "waiting for the server", result));
  StatusOr<FrameHeader> decoded = DecodeFrameHeader(header_.data(), kServerFrameLimits);
  if (!decoded.ok()) return decoded.status().WithContext(Where());
  const FrameHeader header = *decoded;
  meta_.resize(header.meta_length);
  std::string ignored_body;
  std::string* payload = body ? body : &ignored_body;
  payload->resize(header.body_length);
  const std::array<asio::mutable_buffer, 2> buffers = {asio::buffer(meta_), asio::buffer(*payload)};
  done_ = false;
  asio::async_read(transport_->socket, buffers, [this, &result](asio::error_code ec, size_t) {
    result = ec;
    done_ = true;
  });
  DT_RETURN_IF_ERROR(RunUntil(deadline, "reading a frame", result));
  return ParseFrameMeta(header.type, meta_, expected, meta).WithContext(Where());
}

Status DataServerClient::OpenOnce(Clock::time_point deadline) {
  asio::error_code ec;
  transport_->socket.close(ec);
  asio::ip::tcp::resolver resolver(transport_->io);
  const auto endpoints = resolver.resolve(endpoint_.host, endpoint_.port, ec);
  if (ec) return IoError(Where() + ": cannot resolve '" + endpoint_.host + "': " + ec.message());
  asio::error_code result;
  done_ = false;
  asio::async_connect(transport_->socket, endpoints,
                      [this, &result](asio::error_code connect_ec, const asio::ip::tcp::endpoint&) {
                        result = connect_ec;
                        done_ = true;
                      });
  DT_RETURN_IF_ERROR(RunUntil(deadline, "connecting", result));
  transport_->socket.set_option(asio::ip::tcp::no_delay(true), ec);
  connected_ = true;

  DataServerChallenge challenge;
  DT_RETURN_IF_ERROR(ReadFrame(FrameType::kChallenge, &challenge, nullptr, deadline));
  if (challenge.auth_required() && options_.secret.empty()) {
    return InvalidArgument(Where() +
                           " requires a shared secret: set data_param.server_auth_file "
                           "to the file given to the server's --auth-file");
  }
  DataServerHello hello;
  if (challenge.auth_required())
    hello.set_mac(ChallengeResponse(options_.secret, challenge.nonce()));
  hello.set_client(options_.name);
  DT_RETURN_IF_ERROR(Write(EncodeFrame(FrameType::kHello, hello), deadline));
  return ReadFrame(FrameType::kWelcome, &welcome_, nullptr, deadline);
}

Status DataServerClient::Open(Clock::time_point deadline) {
  Status status;
  while (true) {
    status = OpenOnce(deadline);
    if (status.ok() || status.code() != StatusCode::kIo || Clock::now() >= deadline ||
        interrupted_) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (!status.ok() && status.code() == StatusCode::kIo) {
    return IoError(Where() + " did not answer within " +
                   std::to_string(static_cast<int>(options_.timeout_s)) +
                   " s (data_param.server_timeout); last error: " + status.message());
  }
  return status;
}

Status DataServerClient::SendSubscription(Clock::time_point deadline) {
  DataServerSubscribe subscribe = subscription_;
  subscribe.set_first_batch(next_batch_);
  DT_RETURN_IF_ERROR(Write(EncodeFrame(FrameType::kSubscribe, subscribe), deadline));
  DataServerRequest request;
  request.set_until(next_batch_ + std::max(1, options_.window));
  return Write(EncodeFrame(FrameType::kRequest, request), deadline);
}

Status DataServerClient::Subscribe(const DataServerSubscribe& subscribe) {
  if (interrupted_) {  // a restart after an interruption: drop its pending close, go on
    transport_->io.restart();
    transport_->io.poll();
    interrupted_ = false;
    connected_ = false;
  }
  const Clock::time_point deadline = Deadline();
  if (subscribed_ || !connected_) {  // a restart: start from a clean connection
    DT_RETURN_IF_ERROR(Open(deadline));
    ++reconnections_;
  }
  subscription_ = subscribe;
  next_batch_ = subscribe.first_batch();
  subscribed_ = true;
  return SendSubscription(deadline);
}

Status DataServerClient::Next(ReceivedBatch* batch) {
  if (!subscribed_) return Status(StatusCode::kInternal, "DataServerClient::Next before Subscribe");
  Clock::time_point deadline = Deadline();
  while (true) {
    Status status;
    if (!connected_) {
      status = Open(deadline);
      if (status.ok()) {
        ++reconnections_;
        status = SendSubscription(deadline);
      }
    }
    if (status.ok()) status = ReadFrame(FrameType::kBatch, &batch->meta, &batch->body, deadline);
    if (status.ok()) {
      if (batch->meta.index() != next_batch_) {
        return DataLoss(Where() + " sent batch " + std::to_string(batch->meta.index()) +
                        " where batch " + std::to_string(next_batch_) + " was due");
      }
      ++next_batch_;
      DataServerRequest request;
      request.set_until(next_batch_ + std::max(1, options_.window));
      status = Write(EncodeFrame(FrameType::kRequest, request), deadline);
      if (status.ok()) return Status::Ok();
      // The batch is ours; the next call reconnects and asks for the one after it.
      connected_ = false;
      return Status::Ok();
    }
    if (status.code() != StatusCode::kIo || Clock::now() >= deadline || interrupted_) return status;
    DT_LOG(WARNING) << status.message() << "; reconnecting to resume at batch " << next_batch_;
    connected_ = false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace dtrain
