// Video files through FFmpeg (data/video_file.h) and VideoData's order of their frames
// (data/video_frame_source.h), on small videos the tests encode themselves.
#include "data/video_file.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "data/video_frame_source.h"
#include "testing/files.h"
#include "testing/run_command.h"
#include "testing/video_files.h"

namespace dtrain {
namespace {

using testing::TempDir;
using testing::TestVideoCodec;

constexpr int kHeight = 6, kWidth = 8;

std::unique_ptr<VideoFile> OpenVideo(const std::string& path) {
  auto video = VideoFile::Open(path, 2);
  EXPECT_TRUE(video.ok()) << video.status().message();
  return video.ok() ? std::move(video).value() : nullptr;
}

std::string OpenError(const std::string& path) {
  auto video = VideoFile::Open(path);
  EXPECT_FALSE(video.ok()) << path;
  return video.ok() ? "" : video.status().message();
}

TEST(VideoFileTest, LosslessFramesDecodeToTheirExactBgrPixels) {
  TempDir dir;
  const std::vector<Image8> frames = testing::GradientFrames(5, kHeight, kWidth);
  ASSERT_TRUE(testing::WriteTestVideo(dir.Path("v.mkv"), frames, TestVideoCodec::kFfv1).ok());
  auto video = OpenVideo(dir.Path("v.mkv"));
  ASSERT_NE(video, nullptr);
  EXPECT_EQ(video->frame_count(), 5);
  EXPECT_EQ(video->height(), kHeight);
  EXPECT_EQ(video->width(), kWidth);
  EXPECT_EQ(video->codec(), "ffv1");
  // Forward, then back (a fresh pass) and forward again past skipped frames.
  for (int64_t index : {0, 1, 2, 3, 4, 1, 4, 0}) {
    ASSERT_TRUE(video->Seek(index).ok());
    EXPECT_EQ(video->frame_index(), index);
    const Image8& frame = video->frame();
    EXPECT_EQ(frame.channels, 3);
    EXPECT_EQ(frame.height, kHeight);
    EXPECT_EQ(frame.width, kWidth);
    EXPECT_EQ(frame.pixels, frames[index].pixels) << "frame " << index;
  }
}

// MPEG-4 with B-frames: the decoder gives the frames in presentation order, each near its
// colour (lossy), and the count of packets is the count of frames.
TEST(VideoFileTest, BFramesComeInPresentationOrder) {
  TempDir dir;
  const std::vector<Image8> frames = testing::SolidFrames(8, 16, 16);
  ASSERT_TRUE(testing::WriteTestVideo(dir.Path("v.avi"), frames, TestVideoCodec::kMpeg4).ok());
  auto video = OpenVideo(dir.Path("v.avi"));
  ASSERT_NE(video, nullptr);
  EXPECT_EQ(video->frame_count(), 8);
  EXPECT_EQ(video->codec(), "mpeg4");
  for (int64_t index = 0; index < 8; ++index) {
    ASSERT_TRUE(video->Seek(index).ok());
    const Image8& frame = video->frame();
    for (int c = 0; c < 3; ++c) {
      // The centre pixel; frames differ by at least 9 levels in every channel.
      const int got = frame.pixels[(8 * 16 + 8) * 3 + c];
      const int want = frames[index].pixels[c];
      EXPECT_NEAR(got, want, 4) << "frame " << index << " channel " << c;
    }
  }
}

TEST(VideoFileTest, AFrameOfAnotherSizeIsAnErrorNamingIt) {
  TempDir dir;
  ASSERT_TRUE(testing::WriteTestVideo(dir.Path("a.m4v"), testing::SolidFrames(3, 16, 16),
                                      TestVideoCodec::kMpeg4Elementary)
                  .ok());
  ASSERT_TRUE(testing::WriteTestVideo(dir.Path("b.m4v"), testing::SolidFrames(3, 32, 16),
                                      TestVideoCodec::kMpeg4Elementary)
                  .ok());
  ASSERT_EQ(std::system(("cat '" + dir.Path("a.m4v") + "' '" + dir.Path("b.m4v") + "' > '" +
                         dir.Path("ab.m4v") + "'")
                            .c_str()),
            0);
  auto video = OpenVideo(dir.Path("ab.m4v"));
  ASSERT_NE(video, nullptr);
  EXPECT_EQ(video->frame_count(), 6);
  EXPECT_TRUE(video->Seek(2).ok());
  EXPECT_EQ(video->Seek(3).message(),
            "video '" + dir.Path("ab.m4v") +
                "': frame 3 is 16x32 (width x height), but frame 0 is 16x16; every frame must "
                "have the first one's size");
}

TEST(VideoFileTest, FilesThatAreNoVideoAreRefusedNamingThem) {
  TempDir dir;
  const std::string missing = dir.Path("missing.mp4");
  EXPECT_EQ(OpenError(missing), "video '" + missing + "' does not exist");
  EXPECT_EQ(OpenError(dir.Path("")),
            "video '" + dir.Path("") + "' is a directory, not a video file");

  testing::WriteTextFile(dir.Path("notes.mp4"), "hello, not a video\n");
  EXPECT_EQ(OpenError(dir.Path("notes.mp4")),
            "video '" + dir.Path("notes.mp4") +
                "': FFmpeg cannot read it as a video (Invalid data found when processing input; "
                "FFmpeg: moov atom not found)");

  ASSERT_TRUE(testing::WriteAudioOnly(dir.Path("sound.mkv")).ok());
  EXPECT_EQ(OpenError(dir.Path("sound.mkv")),
            "video '" + dir.Path("sound.mkv") + "' has no video stream (its streams: audio)");

  ASSERT_TRUE(testing::WriteVideoHeader(dir.Path("empty.avi"), 32, 24, 0, "avi").ok());
  EXPECT_EQ(OpenError(dir.Path("empty.avi")),
            "video '" + dir.Path("empty.avi") +
                "' has no frames (its video stream, codec ffv1, holds no packets)");

  ASSERT_TRUE(testing::WriteVideoHeader(dir.Path("junk.mkv"), 32, 24, 3, "matroska").ok());
  EXPECT_EQ(OpenError(dir.Path("junk.mkv")),
            "video '" + dir.Path("junk.mkv") +
                "': its packet 1 (of 3) does not decode: Invalid data found when processing "
                "input; FFmpeg: invalid version 2 in ver01 header");
}

TEST(VideoFileTest, AbsurdFrameSizesAreRefusedBeforeDecoding) {
  TempDir dir;
  ASSERT_TRUE(
      testing::WriteVideoHeader(dir.Path("huge.mkv"), 1000000, 1000000, 1, "matroska").ok());
  const std::string huge = OpenError(dir.Path("huge.mkv"));
  EXPECT_EQ(huge.rfind("video '" + dir.Path("huge.mkv") +
                           "': its frames are 1000000x1000000 (width x height); one frame as 3 x "
                           "height x width floats: a tensor of shape 3 x 1000000 x 1000000 "
                           "(3000000000000 values, 10.9 TiB) is larger than this machine's memory",
                       0),
            0u)
      << huge;
  // Small in memory, beyond what FFmpeg decodes (a line of 4000000 pixels).
  ASSERT_TRUE(testing::WriteVideoHeader(dir.Path("wide.mkv"), 4000000, 1, 1, "matroska").ok());
  EXPECT_EQ(OpenError(dir.Path("wide.mkv")),
            "video '" + dir.Path("wide.mkv") +
                "': its frames are 4000000x1 (width x height), larger than FFmpeg decodes");
}

TEST(VideoFrameSourceTest, SkipFramesSkipsBeforeEachFrameReadAndWrapsAfterTheLast) {
  TempDir dir;
  const std::vector<Image8> frames = testing::GradientFrames(7, kHeight, kWidth);
  ASSERT_TRUE(testing::WriteTestVideo(dir.Path("v.mkv"), frames, TestVideoCodec::kFfv1).ok());
  // skip_frames 2 over 7 frames: records are frames 2 and 5 (frame 6 is passed over).
  auto source = VideoFrameSource::Open(dir.Path("v.mkv"), 2, 1);
  ASSERT_TRUE(source.ok()) << source.status().message();
  EXPECT_EQ((*source)->RecordCount(), 2);
  const std::vector<int64_t> want = {2, 5, 2, 5, 2};
  for (int64_t position = 0; position < 5; ++position) {
    ASSERT_TRUE((*source)->ReadAt(position).ok());
    EXPECT_EQ((*source)->video().frame_index(), want[position]) << "position " << position;
    EXPECT_EQ((*source)->frame().pixels, frames[want[position]].pixels);
    EXPECT_EQ((*source)->where_frame(),
              "video '" + dir.Path("v.mkv") + "': frame " + std::to_string(want[position]));
  }
  // Without skipping, every frame is a record.
  auto all = VideoFrameSource::Open(dir.Path("v.mkv"), 0, 1);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ((*all)->RecordCount(), 7);
  ASSERT_TRUE((*all)->ReadAt(9).ok());
  EXPECT_EQ((*all)->video().frame_index(), 2);

  auto none = VideoFrameSource::Open(dir.Path("v.mkv"), 7, 1);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "video '" + dir.Path("v.mkv") +
                "' has 7 frame(s), fewer than video_data_param.skip_frames + 1 (8): no frame is "
                "read");
}

}  // namespace
}  // namespace dtrain
