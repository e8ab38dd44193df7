#include "data/data_server_session.h"

#include <cstdio>
#include <utility>

#include "core/logging.h"
#include "data/shared_secret.h"

namespace dtrain {
namespace {

std::string Megabytes(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f MB", bytes / 1e6);
  return text;
}

}  // namespace

DataServerSession::DataServerSession(asio::ip::tcp::socket socket, DataServerShared* shared)
    : socket_(std::move(socket)),
      timer_(socket_.get_executor()),
      shared_(shared),
      started_(std::chrono::steady_clock::now()) {
  asio::error_code ec;
  const auto endpoint = socket_.remote_endpoint(ec);
  peer_ =
      ec ? "unknown peer" : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  ++shared_->connections;
  ++shared_->clients_now;
}

DataServerSession::~DataServerSession() { --shared_->clients_now; }

void DataServerSession::Start() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    auto nonce = MakeNonce();
    if (!nonce.ok()) return self->CloseNow(nonce.status().message());
    self->nonce_ = std::move(nonce).value();
    DataServerChallenge challenge;
    challenge.set_nonce(self->nonce_);
    challenge.set_auth_required(!self->shared_->options.secret.empty());
    self->Send(MakeOutgoingFrame(FrameType::kChallenge, challenge));
    self->ReadFrame(self->shared_->options.handshake_timeout_s);
  });
}

void DataServerSession::Close(const std::string& reason) {
  asio::post(socket_.get_executor(),
             [self = shared_from_this(), reason] { self->CloseNow(reason); });
}

void DataServerSession::ArmTimer(double seconds, std::string what) {
  timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(seconds)));
  timer_.async_wait([self = shared_from_this(), what = std::move(what)](asio::error_code ec) {
    if (ec) return;  // re-armed or cancelled
    ++self->shared_->rejected;
    self->CloseNow(what);
  });
}

void DataServerSession::ReadFrame(double wait_s) {
  if (closed_) return;
  const double handshake = shared_->options.handshake_timeout_s;
  ArmTimer(wait_s, stage_ == Stage::kStreaming
                       ? "no request for " + std::to_string(static_cast<int>(wait_s)) + " s"
                       : "handshake not completed within " +
                             std::to_string(static_cast<int>(wait_s)) + " s");
  asio::async_read(
      socket_, asio::buffer(header_),
      [self = shared_from_this(), handshake](asio::error_code ec, size_t) {
        if (self->closed_) return;
        if (ec) return self->CloseNow(ec == asio::error::eof ? "disconnected" : ec.message());
        auto header = DecodeFrameHeader(self->header_.data(), kClientFrameLimits);
        if (!header.ok()) {
          ++self->shared_->rejected;
          return self->Reject(header.status());
        }
        const FrameType type = header->type;
        self->meta_.resize(header->meta_length);
        self->ArmTimer(handshake, std::string("incomplete ") + FrameTypeName(type) +
                                      " frame after " +
                                      std::to_string(static_cast<int>(handshake)) + " s");
        asio::async_read(self->socket_, asio::buffer(self->meta_),
                         [self, type](asio::error_code ec, size_t) {
                           if (self->closed_) return;
                           if (ec) {
                             ++self->shared_->rejected;
                             return self->CloseNow("truncated frame: " + ec.message());
                           }
                           self->OnFrame(type, self->meta_);
                         });
      });
}

void DataServerSession::OnFrame(FrameType type, const std::string& meta) {
  if (closed_) return;
  Status status;
  switch (stage_) {
    case Stage::kHello:
      status = OnHello(type, meta);
      break;
    case Stage::kSubscribe:
      status = OnSubscribe(type, meta);
      break;
    case Stage::kStreaming:
      status = OnRequest(type, meta);
      break;
  }
  if (!status.ok()) {
    ++shared_->rejected;
    return Reject(status);
  }
  ReadFrame(stage_ == Stage::kStreaming ? shared_->options.idle_timeout_s
                                        : shared_->options.handshake_timeout_s);
}

Status DataServerSession::OnHello(FrameType type, const std::string& meta) {
  DataServerHello hello;
  DT_RETURN_IF_ERROR(ParseFrameMeta(type, meta, FrameType::kHello, &hello));
  client_ = hello.client();
  const std::string& secret = shared_->options.secret;
  if (!secret.empty() && !IsValidResponse(secret, nonce_, hello.mac())) {
    return InvalidArgument("authentication failed: wrong shared secret (--auth-file)");
  }
  stage_ = Stage::kSubscribe;
  Send(MakeOutgoingFrame(FrameType::kWelcome, shared_->maker->welcome()));
  return Status::Ok();
}

Status DataServerSession::OnSubscribe(FrameType type, const std::string& meta) {
  DT_RETURN_IF_ERROR(ParseFrameMeta(type, meta, FrameType::kSubscribe, &subscription_));
  DT_RETURN_IF_ERROR(shared_->maker->CheckSubscription(subscription_));
  transformer_ = shared_->maker->NewTransformer();
  if (transformer_) DT_RETURN_IF_ERROR(transformer_->Init());
  next_to_make_ = until_ = subscription_.first_batch();
  stage_ = Stage::kStreaming;
  DT_LOG(INFO) << "data server: client " << peer_ << " (" << client_ << "): rank "
               << subscription_.rank() << " of " << subscription_.world_size() << ", batches of "
               << subscription_.batch_size() << " from batch " << subscription_.first_batch();
  return Status::Ok();
}

Status DataServerSession::OnRequest(FrameType type, const std::string& meta) {
  DataServerRequest request;
  DT_RETURN_IF_ERROR(ParseFrameMeta(type, meta, FrameType::kRequest, &request));
  if (request.until() > until_) until_ = request.until();
  MakeMore();
  return Status::Ok();
}

void DataServerSession::MakeMore() {
  const size_t depth = static_cast<size_t>(std::max(1, shared_->options.queue_depth));
  if (closed_ || rejected_ || making_ || next_to_make_ >= until_ || outbox_.size() >= depth) {
    return;
  }
  making_ = true;
  const int64_t index = next_to_make_++;
  asio::post(*shared_->io, [self = shared_from_this(), index] {
    StatusOr<OutgoingFrame> frame =
        self->shared_->maker->MakeBatch(self->subscription_, index, self->transformer_.get());
    asio::post(self->socket_.get_executor(), [self, index, frame = std::move(frame)]() mutable {
      self->OnMade(index, std::move(frame));
    });
  });
}

void DataServerSession::OnMade(int64_t index, StatusOr<OutgoingFrame> frame) {
  making_ = false;
  if (closed_ || rejected_) return;
  if (!frame.ok()) {
    DT_LOG(ERROR) << "data server: batch " << index << " for " << peer_ << ": "
                  << frame.status().message();
    return Reject(frame.status());
  }
  Send(std::move(frame).value());
  MakeMore();
}

void DataServerSession::Send(OutgoingFrame frame) {
  outbox_.push_back(std::move(frame));
  if (!writing_) WriteNext();
}

void DataServerSession::WriteNext() {
  if (closed_) return;
  if (outbox_.empty()) {
    if (rejected_) CloseNow("rejected: " + reject_reason_);
    return;
  }
  writing_ = true;
  const OutgoingFrame& frame = outbox_.front();
  const std::array<asio::const_buffer, 3> buffers = {
      asio::buffer(frame.header), asio::buffer(frame.meta), asio::buffer(frame.body)};
  asio::async_write(socket_, buffers, [self = shared_from_this()](asio::error_code ec, size_t n) {
    self->writing_ = false;
    if (ec) return self->CloseNow("write failed: " + ec.message());
    if (self->outbox_.front().header[5] == static_cast<uint8_t>(FrameType::kBatch)) {
      ++self->batches_;
      ++self->shared_->batches;
    }
    self->bytes_ += static_cast<int64_t>(n);
    self->shared_->bytes += static_cast<int64_t>(n);
    self->outbox_.pop_front();
    self->MakeMore();
    self->WriteNext();
  });
}

void DataServerSession::Reject(const Status& status) {
  DT_LOG(WARNING) << "data server: client " << peer_
                  << (client_.empty() ? "" : " (" + client_ + ")") << ": " << status.message()
                  << "; closing the connection";
  rejected_ = true;
  reject_reason_ = status.message();
  // Drop the queued batches, except one being written (its write still reads it).
  outbox_.erase(outbox_.begin() + (writing_ ? 1 : 0), outbox_.end());
  DataServerError error;
  error.set_message(status.message());
  // A peer that does not read the ERROR frame must not keep the session open.
  ArmTimer(shared_->options.handshake_timeout_s, "rejected, and the ERROR frame was not read");
  Send(MakeOutgoingFrame(FrameType::kError, error));
}

void DataServerSession::CloseNow(const std::string& reason) {
  if (closed_) return;
  closed_ = true;
  timer_.cancel();
  asio::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  DT_LOG(INFO) << "data server: client " << peer_ << (client_.empty() ? "" : " (" + client_ + ")")
               << " left after " << static_cast<int>(seconds) << " s: " << batches_ << " batches, "
               << Megabytes(bytes_) << " (" << reason << ")";
}

}  // namespace dtrain
