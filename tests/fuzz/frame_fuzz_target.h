// The data-server frame fuzz target, shared by the libFuzzer binary (data_server_frame_fuzz.cc,
// scripts/fuzz.sh) and the gtest that runs it on random and mutated input in every test run.
//
// Takes `bytes` as a stream from a peer: decodes frames one after another under both readers'
// limits, parses each frame's meta as the message its type names, and checks what must hold for
// any input: a decoded frame lies inside the input, and re-encoding its header gives the same
// 16 bytes. Aborts (a fuzzer finding) when that fails; anything else the codec rejects is fine.
#pragma once

#include <cstdlib>
#include <cstring>
#include <string_view>

#include "data/data_server_frame.h"

namespace dtrain {

inline void FuzzDataServerFrames(std::string_view bytes) {
  for (const FrameLimits& limits : {kClientFrameLimits, kServerFrameLimits}) {
    std::string_view rest = bytes;
    while (!rest.empty()) {
      FrameView frame;
      auto used = DecodeFrame(rest, limits, &frame);
      if (!used.ok() || *used == 0) break;
      const size_t total = kFrameHeaderSize + frame.meta.size() + frame.body.size();
      const FrameHeaderBytes header = EncodeFrameHeader(frame.header);
      if (*used != total || *used > rest.size() ||
          std::memcmp(header.data(), rest.data(), kFrameHeaderSize) != 0) {
        std::abort();
      }
      DataServerChallenge challenge;
      DataServerHello hello;
      DataServerWelcome welcome;
      DataServerSubscribe subscribe;
      DataServerRequest request;
      DataServerBatch batch;
      DataServerError error;
      google::protobuf::MessageLite* messages[] = {&challenge, &hello, &welcome, &subscribe,
                                                   &request,   &batch, &error};
      const FrameType type = frame.header.type;
      ParseFrameMeta(type, frame.meta, type, messages[static_cast<int>(type) - 1]).IgnoreError();
      rest.remove_prefix(*used);
    }
  }
}

}  // namespace dtrain
