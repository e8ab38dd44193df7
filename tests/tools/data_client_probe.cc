// data_client_probe: a data-server client for the multi-host tests, run on a namespace host.
//
//   data_client_probe fetch URI RANK WORLD BATCH FIRST COUNT [SECRET_FILE|-] [DELAY_MS]
//     subscribes as RANK of WORLD from batch FIRST and prints, for each of COUNT batches, one line
//     "INDEX: R R R ..." of its records (TinyDatum labels / 10, i.e. record numbers), flushed at
//     once, sleeping DELAY_MS after each. Errors go to stderr with exit status 1.
//   data_client_probe raw URI HEX
//     reads the server's CHALLENGE, sends the bytes HEX spells, and prints the server's ERROR
//     message ("closed" when it closes without one).
#include <asio.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "data/data_server_client.h"
#include "data/datum.h"
#include "data/shared_secret.h"

namespace dtrain {
namespace {

int Fail(const Status& status) {
  std::fprintf(stderr, "data_client_probe: %s\n", status.message().c_str());
  return 1;
}

int Fetch(int argc, char** argv) {
  if (argc < 8) return Fail(InvalidArgument("fetch needs URI RANK WORLD BATCH FIRST COUNT"));
  DataServerClientOptions options;
  options.uri = argv[2];
  options.timeout_s = 20;
  options.name = "probe";
  if (argc > 8 && std::string(argv[8]) != "-") {
    auto secret = ReadSharedSecret(argv[8]);
    if (!secret.ok()) return Fail(secret.status());
    options.secret = *secret;
  }
  const int delay_ms = argc > 9 ? std::stoi(argv[9]) : 0;
  auto client = DataServerClient::Connect(options);
  if (!client.ok()) return Fail(client.status());
  DataServerSubscribe subscribe;
  subscribe.set_rank(std::stoi(argv[3]));
  subscribe.set_world_size(std::stoi(argv[4]));
  subscribe.set_batch_size(static_cast<uint32_t>(std::stoi(argv[5])));
  subscribe.set_first_batch(std::stoll(argv[6]));
  Status status = (*client)->Subscribe(subscribe);
  if (!status.ok()) return Fail(status);
  ReceivedBatch batch;
  for (int k = 0, count = std::stoi(argv[7]); k < count; ++k) {
    status = (*client)->Next(&batch);
    if (!status.ok()) return Fail(status);
    std::string line = std::to_string(batch.meta.index()) + ":";
    std::string_view body = batch.body;
    for (uint32_t size : batch.meta.record_size()) {
      Datum datum;
      status = ParseDatum(body.substr(0, size), "record", &datum);
      if (!status.ok()) return Fail(status);
      body.remove_prefix(size);
      line += " " + std::to_string(datum.label() / 10);
    }
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  }
  return 0;
}

int Raw(int argc, char** argv) {
  if (argc < 4) return Fail(InvalidArgument("raw needs URI HEX"));
  auto endpoint = ParseDataServerUri(argv[2]);
  if (!endpoint.ok()) return Fail(endpoint.status());
  std::string bytes;
  const std::string hex = argv[3];
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  asio::ip::tcp::resolver resolver(io);
  asio::connect(socket, resolver.resolve(endpoint->host, endpoint->port));
  FrameHeaderBytes header;
  asio::read(socket, asio::buffer(header));
  auto decoded = DecodeFrameHeader(header.data(), kServerFrameLimits);
  if (!decoded.ok()) return Fail(decoded.status());
  std::string challenge(decoded->meta_length, '\0');
  asio::read(socket, asio::buffer(challenge));
  asio::write(socket, asio::buffer(bytes));
  std::string reply;
  asio::error_code ec;
  char chunk[4096];
  for (size_t n; (n = socket.read_some(asio::buffer(chunk), ec)), !ec;) reply.append(chunk, n);
  FrameView frame;
  auto used = DecodeFrame(reply, kServerFrameLimits, &frame);
  DataServerError error;
  if (used.ok() && *used > 0 && frame.header.type == FrameType::kError &&
      error.ParseFromArray(frame.meta.data(), static_cast<int>(frame.meta.size()))) {
    std::printf("%s\n", error.message().c_str());
  } else {
    std::printf("closed\n");
  }
  return 0;
}

}  // namespace
}  // namespace dtrain

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "fetch") return dtrain::Fetch(argc, argv);
  if (mode == "raw") return dtrain::Raw(argc, argv);
  std::fprintf(stderr, "usage: data_client_probe fetch|raw ... (see the source)\n");
  return 2;
}
