// VideoData through the real command line: `dtrain check` of a net in the form of Intel's SSD
// video nets (resize_param to 300 x 300, the mean, a batch of 1) builds it from a video file, and
// `dtrain train` trains a small net on a video, reading it again from the first frame at its end.
#include <gtest/gtest.h>

#include <string>

#include "testing/files.h"
#include "testing/run_command.h"
#include "testing/video_files.h"

namespace dtrain {
namespace {

using testing::RunDtrain;
using testing::WriteTextFile;

TEST(VideoDataCli, CheckBuildsIntelsSsdVideoNetFromAVideoFile) {
  testing::TempDir dir;
  ASSERT_TRUE(testing::WriteTestVideo(dir.Path("street.mkv"), testing::GradientFrames(3, 24, 32),
                                      testing::TestVideoCodec::kFfv1)
                  .ok());
  // SSD_300x300_webcam/test.prototxt's data layer, pointed at a file.
  WriteTextFile(dir.Path("net.prototxt"),
                "name: 'VGG_VOC0712_SSD_300x300_test'\n"
                "layer { name: 'data' type: 'VideoData' top: 'data'\n"
                "  transform_param { mean_value: 104 mean_value: 117 mean_value: 123\n"
                "    resize_param { prob: 1 resize_mode: WARP height: 300 width: 300\n"
                "      interp_mode: LINEAR } }\n"
                "  data_param { batch_size: 1 }\n"
                "  video_data_param { video_type: VIDEO video_file: 'street.mkv' "
                "skip_frames: 0 } }\n"
                "layer { name: 'conv1_1' type: 'Convolution' bottom: 'data' top: 'conv1_1'\n"
                "  convolution_param { num_output: 4 pad: 1 kernel_size: 3 } }\n");
  const auto r = RunDtrain("check --model=net.prototxt", dir.Path(""));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("data                         VideoData        1 3 300 300 (270000)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("conv1_1                      Convolution      1 4 300 300 (360000)"),
            std::string::npos)
      << r.output;
}

TEST(VideoDataCli, TrainReadsTheVideoAgainFromItsFirstFrame) {
  testing::TempDir dir;
  ASSERT_TRUE(testing::WriteTestVideo(dir.Path("clip.mkv"), testing::GradientFrames(5, 6, 8),
                                      testing::TestVideoCodec::kFfv1)
                  .ok());
  WriteTextFile(dir.Path("net.prototxt"),
                "layer { name: 'frames' type: 'VideoData' top: 'data' top: 'label'\n"
                "  transform_param { scale: 0.00390625 crop_size: 4 mirror: true }\n"
                "  data_param { batch_size: 2 }\n"
                "  video_data_param { video_type: VIDEO video_file: 'clip.mkv' } }\n"
                "layer { name: 'fc' type: 'InnerProduct' bottom: 'data' top: 'fc'\n"
                "  inner_product_param { num_output: 2 weight_filler { type: 'xavier' } } }\n"
                "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'fc' bottom: 'label' "
                "top: 'loss' }\n");
  WriteTextFile(dir.Path("solver.prototxt"),
                "net: 'net.prototxt' base_lr: 0.1 lr_policy: 'fixed' max_iter: 4 display: 1 "
                "snapshot_after_train: false random_seed: 3\n");
  const auto r = RunDtrain("train --solver=solver.prototxt", dir.Path(""));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Opened video clip.mkv: 5 frames of 8x6 (ffv1), 5 read per pass "
                          "(skip_frames 0)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("layer 'frames' (VideoData): end of video 'clip.mkv', reading it again "
                          "from its first frame"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("Iteration 4"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace dtrain
