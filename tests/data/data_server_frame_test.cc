// The frame codec: round trips, each rejected header, and the fuzz target (tests/fuzz/) over
// 100000 random and mutated inputs in every test run; scripts/fuzz.sh runs it under libFuzzer.
#include "data/data_server_frame.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "fuzz/frame_fuzz_target.h"

namespace dtrain {
namespace {

TEST(DataServerFrameTest, RoundTripsAFrameWithABody) {
  DataServerBatch meta;
  meta.set_index(42);
  meta.add_record_size(3);
  const std::string frame = EncodeFrame(FrameType::kBatch, meta, "abc");
  FrameView view;
  auto used = DecodeFrame(frame, kServerFrameLimits, &view);
  ASSERT_TRUE(used.ok());
  EXPECT_EQ(*used, frame.size());
  EXPECT_EQ(view.header.type, FrameType::kBatch);
  EXPECT_EQ(view.body, "abc");
  DataServerBatch parsed;
  ASSERT_TRUE(ParseFrameMeta(view.header.type, view.meta, FrameType::kBatch, &parsed).ok());
  EXPECT_EQ(parsed.index(), 42);
  // Any proper prefix is "read more", not an error.
  for (size_t n = 0; n < frame.size(); ++n) {
    auto partial = DecodeFrame(frame.substr(0, n), kServerFrameLimits, &view);
    ASSERT_TRUE(partial.ok());
    EXPECT_EQ(*partial, 0u);
  }
}

TEST(DataServerFrameTest, RejectsBadHeadersWithTheReason) {
  auto reason = [](FrameHeaderBytes bytes, FrameLimits limits = kServerFrameLimits) {
    auto header = DecodeFrameHeader(bytes.data(), limits);
    return header.ok() ? std::string("ok") : header.status().message();
  };
  FrameHeaderBytes good = EncodeFrameHeader({FrameType::kRequest, 10, 0});
  EXPECT_EQ(reason(good), "ok");
  FrameHeaderBytes bytes = good;
  bytes[0] = 'X';
  EXPECT_EQ(reason(bytes), "not a dtrain data-server frame (bad magic)");
  bytes = good;
  bytes[4] = 2;
  EXPECT_EQ(reason(bytes), "frame version 2 is not supported (this side speaks 1)");
  bytes = good;
  bytes[5] = 99;
  EXPECT_EQ(reason(bytes), "unknown frame type 99");
  bytes = good;
  bytes[7] = 1;
  EXPECT_EQ(reason(bytes), "frame header's reserved bytes are not 0");
  EXPECT_EQ(reason(EncodeFrameHeader({FrameType::kRequest, 5000, 0}), kClientFrameLimits),
            "frame meta of 5000 bytes exceeds the limit of 4096");
  EXPECT_EQ(reason(EncodeFrameHeader({FrameType::kRequest, 1, 1})), "REQUEST frame carries a body");
}

TEST(DataServerFrameTest, ParseChecksTheTypeAndReportsPeerErrors) {
  DataServerRequest request;
  EXPECT_EQ(ParseFrameMeta(FrameType::kBatch, "", FrameType::kRequest, &request).message(),
            "expected a REQUEST frame, got BATCH");
  DataServerError error;
  error.set_message("go away");
  const std::string meta = error.SerializeAsString();
  EXPECT_EQ(ParseFrameMeta(FrameType::kError, meta, FrameType::kRequest, &request).message(),
            "the data server refused: go away");
  EXPECT_EQ(ParseFrameMeta(FrameType::kRequest, "\xff", FrameType::kRequest, &request).message(),
            "malformed REQUEST message");
}

TEST(DataServerFrameTest, SurvivesRandomAndMutatedInput) {
  std::mt19937 rng(12345);
  DataServerSubscribe subscribe;
  subscribe.set_rank(1);
  subscribe.set_world_size(3);
  DataServerBatch batch;
  batch.add_record_size(4);
  const std::string valid =
      EncodeFrame(FrameType::kSubscribe, subscribe) + EncodeFrame(FrameType::kBatch, batch, "body");
  for (int i = 0; i < 100000; ++i) {
    std::string bytes;
    if (i % 2 == 0) {  // random bytes, sometimes behind a valid magic and version
      bytes.resize(rng() % 64);
      for (char& c : bytes) c = static_cast<char>(rng());
      if (i % 4 == 0) bytes = std::string("DTDS\x01", 5) + bytes;
    } else {  // a valid stream with a few bytes flipped, cut short or extended
      bytes = valid;
      for (int flips = 1 + rng() % 4; flips > 0; --flips) {
        bytes[rng() % bytes.size()] = static_cast<char>(rng());
      }
      if (rng() % 3 == 0) bytes.resize(rng() % bytes.size());
    }
    FuzzDataServerFrames(bytes);
  }
}

}  // namespace
}  // namespace dtrain
