// Hostile input to the VideoData layer: a camera, a file that is no video, one without frames,
// missing. Each is refused naming the layer and the file (exit status 1, under a time limit),
// never a crash or a hang.
#include <gtest/gtest.h>

#include <string>

#include "hostile/hostile.h"
#include "testing/files.h"
#include "testing/video_files.h"

namespace dtrain {
namespace {

using testing::RunDtrainWithin;
using testing::TempDir;
using testing::WriteTextFile;

// A net reading `video_data_param`'s video through VideoData into one InnerProduct.
std::string VideoNet(const std::string& video_data_param) {
  return "layer { name: 'video' type: 'VideoData' top: 'data' top: 'label'\n"
         "  data_param { batch_size: 2 }\n"
         "  video_data_param { " +
         video_data_param +
         " } }\n"
         "layer { name: 'fc' type: 'InnerProduct' bottom: 'data' top: 'fc'\n"
         "  inner_product_param { num_output: 2 } }\n"
         "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'fc' bottom: 'label' }\n";
}

TEST(HostileVideo, ACameraIsRefusedByName) {
  TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"),
                VideoNet("video_type: WEBCAM device_id: 0 skip_frames: 0"));
  EXPECT_REFUSED_WITH(RunDtrainWithin(120, "check --model=net.prototxt", dir.Path("")),
                      "layer 'video' (VideoData): video_data_param.video_type WEBCAM (a camera) "
                      "is not supported: dtrain reads video files; set video_type: VIDEO and "
                      "video_file\n");
}

TEST(HostileVideo, FilesThatAreNoUsableVideoAreRefusedNamingThem) {
  TempDir dir;
  WriteTextFile(dir.Path("notes.mp4"), "hello, not a video\n");
  ASSERT_TRUE(testing::WriteAudioOnly(dir.Path("sound.mkv")).ok());
  ASSERT_TRUE(testing::WriteVideoHeader(dir.Path("empty.avi"), 32, 24, 0, "avi").ok());
  ASSERT_TRUE(testing::WriteVideoHeader(dir.Path("junk.mkv"), 32, 24, 3, "matroska").ok());
  ASSERT_TRUE(
      testing::WriteVideoHeader(dir.Path("huge.mkv"), 1000000, 1000000, 1, "matroska").ok());
  const std::pair<const char*, const char*> cases[] = {
      {"notes.mp4",
       "layer 'video' (VideoData): video 'notes.mp4': FFmpeg cannot read it as a video (Invalid "
       "data found when processing input; FFmpeg: moov atom not found)"},
      {"sound.mkv",
       "layer 'video' (VideoData): video 'sound.mkv' has no video stream (its streams: audio)"},
      {"empty.avi",
       "layer 'video' (VideoData): video 'empty.avi' has no frames (its video stream, codec "
       "ffv1, holds no packets)"},
      {"junk.mkv",
       "layer 'video' (VideoData): video 'junk.mkv': its packet 1 (of 3) does not decode: "
       "Invalid data found when processing input"},
      {"huge.mkv",
       "layer 'video' (VideoData): video 'huge.mkv': its frames are 1000000x1000000 (width x "
       "height); one frame as 3 x height x width floats: a tensor of shape 3 x 1000000 x 1000000 "
       "(3000000000000 values, 10.9 TiB) is larger than this machine's memory"},
  };
  for (const auto& [video, message] : cases) {
    WriteTextFile(dir.Path("net.prototxt"),
                  VideoNet("video_type: VIDEO video_file: '" + std::string(video) + "'"));
    EXPECT_REFUSED_WITH(RunDtrainWithin(120, "check --model=net.prototxt", dir.Path("")), message);
  }
}

// As with a missing LMDB, `dtrain check` builds what it can and says the shapes are unknown; a
// run that reads the video is refused.
TEST(HostileVideo, AMissingVideoIsNamed) {
  TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"), VideoNet("video_type: VIDEO video_file: 'gone.mp4'"));
  WriteTextFile(dir.Path("solver.prototxt"),
                "net: 'net.prototxt' base_lr: 0.1 lr_policy: 'fixed' max_iter: 2\n");
  const std::string message = "layer 'video' (VideoData): video 'gone.mp4' does not exist";
  const auto check = RunDtrainWithin(120, "check --model=net.prototxt", dir.Path(""));
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("shapes unknown (" + message + ")"), std::string::npos)
      << check.output;
  EXPECT_REFUSED_WITH(RunDtrainWithin(120, "train --solver=solver.prototxt", dir.Path("")),
                      message);
}

}  // namespace
}  // namespace dtrain
