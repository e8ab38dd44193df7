#include "data/data_server_frame.h"

#include <cstring>

namespace dtrain {
namespace {

constexpr uint8_t kMagic[4] = {'D', 'T', 'D', 'S'};

void PutU32(uint32_t value, uint8_t* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(value >> (8 * i));
}

uint32_t GetU32(const uint8_t* in) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value |= static_cast<uint32_t>(in[i]) << (8 * i);
  return value;
}

bool KnownType(uint8_t type) {
  return type >= static_cast<uint8_t>(FrameType::kChallenge) &&
         type <= static_cast<uint8_t>(FrameType::kError);
}

}  // namespace

const char* FrameTypeName(FrameType type) {
  switch (type) {
    case FrameType::kChallenge:
      return "CHALLENGE";
    case FrameType::kHello:
      return "HELLO";
    case FrameType::kWelcome:
      return "WELCOME";
    case FrameType::kSubscribe:
      return "SUBSCRIBE";
    case FrameType::kRequest:
      return "REQUEST";
    case FrameType::kBatch:
      return "BATCH";
    case FrameType::kError:
      return "ERROR";
  }
  return "UNKNOWN";
}

FrameHeaderBytes EncodeFrameHeader(const FrameHeader& header) {
  FrameHeaderBytes bytes{};
  std::memcpy(bytes.data(), kMagic, 4);
  bytes[4] = kFrameVersion;
  bytes[5] = static_cast<uint8_t>(header.type);
  PutU32(header.meta_length, bytes.data() + 8);
  PutU32(header.body_length, bytes.data() + 12);
  return bytes;
}

StatusOr<FrameHeader> DecodeFrameHeader(const uint8_t* bytes, const FrameLimits& limits) {
  if (std::memcmp(bytes, kMagic, 4) != 0) {
    return DataLoss("not a dtrain data-server frame (bad magic)");
  }
  if (bytes[4] != kFrameVersion) {
    return DataLoss("frame version " + std::to_string(bytes[4]) +
                    " is not supported (this side speaks " + std::to_string(kFrameVersion) + ")");
  }
  if (!KnownType(bytes[5])) return DataLoss("unknown frame type " + std::to_string(bytes[5]));
  if (bytes[6] != 0 || bytes[7] != 0) return DataLoss("frame header's reserved bytes are not 0");
  FrameHeader header;
  header.type = static_cast<FrameType>(bytes[5]);
  header.meta_length = GetU32(bytes + 8);
  header.body_length = GetU32(bytes + 12);
  if (header.meta_length > limits.max_meta) {
    return DataLoss(std::string("frame meta of ") + std::to_string(header.meta_length) +
                    " bytes exceeds the limit of " + std::to_string(limits.max_meta));
  }
  if (header.body_length > limits.max_body) {
    return DataLoss(std::string("frame body of ") + std::to_string(header.body_length) +
                    " bytes exceeds the limit of " + std::to_string(limits.max_body));
  }
  if (header.body_length > 0 && header.type != FrameType::kBatch) {
    return DataLoss(std::string(FrameTypeName(header.type)) + " frame carries a body");
  }
  return header;
}

std::string EncodeFrame(FrameType type, const google::protobuf::MessageLite& meta,
                        std::string_view body) {
  const std::string meta_bytes = meta.SerializeAsString();
  FrameHeader header{type, static_cast<uint32_t>(meta_bytes.size()),
                     static_cast<uint32_t>(body.size())};
  const FrameHeaderBytes head = EncodeFrameHeader(header);
  std::string frame;
  frame.reserve(kFrameHeaderSize + meta_bytes.size() + body.size());
  frame.append(reinterpret_cast<const char*>(head.data()), head.size());
  frame.append(meta_bytes);
  frame.append(body);
  return frame;
}

StatusOr<size_t> DecodeFrame(std::string_view bytes, const FrameLimits& limits, FrameView* frame) {
  if (bytes.size() < kFrameHeaderSize) return size_t{0};
  DT_ASSIGN_OR_RETURN(frame->header,
                      DecodeFrameHeader(reinterpret_cast<const uint8_t*>(bytes.data()), limits));
  const size_t total =
      kFrameHeaderSize + size_t{frame->header.meta_length} + size_t{frame->header.body_length};
  if (bytes.size() < total) return size_t{0};
  frame->meta = bytes.substr(kFrameHeaderSize, frame->header.meta_length);
  frame->body =
      bytes.substr(kFrameHeaderSize + frame->header.meta_length, frame->header.body_length);
  return total;
}

Status ParseFrameMeta(FrameType type, std::string_view meta, FrameType expected,
                      google::protobuf::MessageLite* message) {
  if (type == FrameType::kError && expected != FrameType::kError) {
    DataServerError error;
    if (!error.ParseFromArray(meta.data(), static_cast<int>(meta.size()))) {
      return DataLoss("malformed ERROR message");
    }
    return InvalidArgument("the data server refused: " + error.message());
  }
  if (type != expected) {
    return DataLoss(std::string("expected a ") + FrameTypeName(expected) + " frame, got " +
                    FrameTypeName(type));
  }
  if (!message->ParseFromArray(meta.data(), static_cast<int>(meta.size()))) {
    return DataLoss(std::string("malformed ") + FrameTypeName(type) + " message");
  }
  return Status::Ok();
}

}  // namespace dtrain
