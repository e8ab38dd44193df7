// The data server's frame format: the one definition shared by the server, the client, the tests
// and the fuzzer (docs/formats/data-server.md writes it up).
//
// A frame is a 16-byte header, then `meta_length` bytes of one protobuf message from
// proto/data_server.proto (which one is given by the type), then `body_length` raw bytes (BATCH
// frames only). Header fields, little-endian:
//   0  4  magic "DTDS"
//   4  1  version (kFrameVersion)
//   5  1  type (FrameType)
//   6  2  reserved, 0
//   8  4  meta_length
//  12  4  body_length
// Every length is checked against a FrameLimits before anything is allocated, so a hostile peer
// cannot make a reader allocate more than the limits allow.
//
// Pure functions over bytes: no I/O, no state, thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"
#include "proto/data_server.pb.h"

namespace dtrain {

inline constexpr size_t kFrameHeaderSize = 16;
inline constexpr uint8_t kFrameVersion = 1;

enum class FrameType : uint8_t {
  kChallenge = 1,  // server -> client: DataServerChallenge
  kHello = 2,      // client -> server: DataServerHello
  kWelcome = 3,    // server -> client: DataServerWelcome
  kSubscribe = 4,  // client -> server: DataServerSubscribe
  kRequest = 5,    // client -> server: DataServerRequest
  kBatch = 6,      // server -> client: DataServerBatch + body
  kError = 7,      // either way: DataServerError, then the sender closes
};

// "CHALLENGE", "BATCH", ... for messages.
const char* FrameTypeName(FrameType type);

// The largest frame a reader accepts.
struct FrameLimits {
  uint32_t max_meta = 0;
  uint32_t max_body = 0;
};
// What a server accepts from a client: small control messages, no body.
inline constexpr FrameLimits kClientFrameLimits{4096, 0};
// What a client accepts from a server by default: batches of up to 1 GiB.
inline constexpr FrameLimits kServerFrameLimits{16u << 20, 1u << 30};

struct FrameHeader {
  FrameType type = FrameType::kError;
  uint32_t meta_length = 0;
  uint32_t body_length = 0;
};

using FrameHeaderBytes = std::array<uint8_t, kFrameHeaderSize>;

FrameHeaderBytes EncodeFrameHeader(const FrameHeader& header);

// Checks magic, version, type, reserved bytes and both lengths against `limits` (and that only
// BATCH frames carry a body). Errors say what was wrong, e.g. "frame meta of 9000 bytes exceeds
// the limit of 4096".
StatusOr<FrameHeader> DecodeFrameHeader(const uint8_t* bytes, const FrameLimits& limits);

// A whole frame: header + serialized `meta` + `body`.
std::string EncodeFrame(FrameType type, const google::protobuf::MessageLite& meta,
                        std::string_view body = {});

// One decoded frame; `meta` and `body` view the decoded bytes.
struct FrameView {
  FrameHeader header;
  std::string_view meta;
  std::string_view body;
};

// Decodes the frame at the start of `bytes`. Returns the number of bytes it takes, or 0 when
// `bytes` holds only the beginning of a valid frame (read more); a bad header is an error.
StatusOr<size_t> DecodeFrame(std::string_view bytes, const FrameLimits& limits, FrameView* frame);

// Parses `meta` as the message of `type`, which must be `expected`: "expected SUBSCRIBE, got
// BATCH" or "malformed HELLO message" otherwise (DataLoss). An ERROR frame where another was
// expected is InvalidArgument "the data server refused: <its message>".
Status ParseFrameMeta(FrameType type, std::string_view meta, FrameType expected,
                      google::protobuf::MessageLite* message);

}  // namespace dtrain
