// VideoData (Intel Caffe's, the SSD fork's) on videos the tests encode themselves: the tops are
// the frames' BGR values after the transform, skip_frames, the return to the first frame, shards,
// resumes, and the parameters refused by name.
#include "layers/video_data_layer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "layers/sharded_source.h"
#include "proto/net.pb.h"
#include "testing/files.h"
#include "testing/layer_test_util.h"
#include "testing/video_files.h"

namespace dtrain {
namespace {

using testing::MakeLayer;
using testing::TempDir;

constexpr int kHeight = 6, kWidth = 8, kFrames = 5;

class VideoDataLayerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    frames_ = testing::GradientFrames(kFrames, kHeight, kWidth);
    ASSERT_TRUE(testing::WriteTestVideo(Video(), frames_, testing::TestVideoCodec::kFfv1).ok());
  }
  std::string Video() const { return dir_.Path("clip.mkv"); }

  // Intel's form: VideoData with data_param's batch_size and video_data_param.
  LayerParameter Param(int batch_size, const std::string& more = "") const {
    return testing::ParseLayerParameter(
        "name: 'video' type: 'VideoData' top: 'data' top: 'label'\n"
        "data_param { batch_size: " +
        std::to_string(batch_size) +
        " }\n"
        "video_data_param { video_type: VIDEO video_file: '" +
        Video() + "' }\n" + more);
  }

  testing::LayerPtr Make(const LayerParameter& p, Phase phase = TEST, Tensor* data = nullptr,
                         Tensor* label = nullptr) {
    auto layer = MakeLayer(p, phase, 1701);
    if (!layer) return layer;
    TensorVec top{data ? data : &data_, label ? label : &label_};
    const Status s = layer->Setup({}, top);
    EXPECT_TRUE(s.ok()) << s.message();
    return layer;
  }

  // One batch's data values.
  std::vector<float> Batch(Layer* layer, Tensor* data = nullptr, Tensor* label = nullptr) {
    Tensor* d = data ? data : &data_;
    TensorVec top{d, label ? label : &label_};
    float loss = 0;
    const Status s = layer->Forward({}, top, &loss);
    EXPECT_TRUE(s.ok()) << s.message();
    return testing::Values(*d);
  }

  // Frame `index` as the untransformed data of one item: its B, G and R planes.
  std::vector<float> Planes(int index) const {
    std::vector<float> planes(3 * kHeight * kWidth);
    for (int c = 0; c < 3; ++c) {
      for (int i = 0; i < kHeight * kWidth; ++i) {
        planes[c * kHeight * kWidth + i] = frames_[index].pixels[i * 3 + c];
      }
    }
    return planes;
  }
  std::vector<float> PlanesOf(std::initializer_list<int> indices) const {
    std::vector<float> values;
    for (int i : indices) {
      const std::vector<float> p = Planes(i);
      values.insert(values.end(), p.begin(), p.end());
    }
    return values;
  }

  // The error Setup returns.
  std::string SetupError(const LayerParameter& p) {
    auto layer = MakeLayer(p, TEST, 1701);
    if (!layer) return "";
    TensorVec top{&data_, &label_};
    const Status s = layer->Setup({}, top);
    EXPECT_FALSE(s.ok());
    return s.message();
  }

  TempDir dir_;
  std::vector<Image8> frames_;
  Tensor data_, label_;
};

TEST_F(VideoDataLayerTest, TopsAreTheFramesInBgrWithLabelZeroAndWrapRound) {
  auto layer = Make(Param(2));
  ASSERT_NE(layer, nullptr);
  EXPECT_EQ(data_.shape(), (std::vector<int>{2, 3, kHeight, kWidth}));
  EXPECT_EQ(label_.shape(), (std::vector<int>{2}));
  EXPECT_EQ(Batch(layer.get()), PlanesOf({0, 1}));
  EXPECT_EQ(testing::Values(label_), (std::vector<float>{0, 0}));
  EXPECT_EQ(Batch(layer.get()), PlanesOf({2, 3}));
  // The end of the video: the first frame again.
  EXPECT_EQ(Batch(layer.get()), PlanesOf({4, 0}));
  EXPECT_EQ(Batch(layer.get()), PlanesOf({1, 2}));
}

TEST_F(VideoDataLayerTest, OneTopIsEnough) {
  auto layer = MakeLayer(Param(1), TEST, 1701);
  ASSERT_NE(layer, nullptr);
  TensorVec top{&data_};
  ASSERT_TRUE(layer->Setup({}, top).ok());
  float loss = 0;
  ASSERT_TRUE(layer->Forward({}, top, &loss).ok());
  EXPECT_EQ(testing::Values(data_), Planes(0));
}

TEST_F(VideoDataLayerTest, SkipFramesSkipsThatManyBeforeEachFrameRead) {
  // 5 frames, skip 1: frames 1 and 3 are read, frame 4 passed over, then frame 1 again.
  LayerParameter p = Param(3);
  p.mutable_video_data_param()->set_skip_frames(1);
  auto layer = Make(p);
  ASSERT_NE(layer, nullptr);
  EXPECT_EQ(Batch(layer.get()), PlanesOf({1, 3, 1}));
  EXPECT_EQ(Batch(layer.get()), PlanesOf({3, 1, 3}));
}

TEST_F(VideoDataLayerTest, TransformCropsScalesAndSubtractsTheMeanPerChannel) {
  auto layer = Make(Param(1,
                          "transform_param { crop_size: 4 scale: 0.5 mean_value: 10 "
                          "mean_value: 20 mean_value: 30 }"),
                    TEST);
  ASSERT_NE(layer, nullptr);
  EXPECT_EQ(data_.shape(), (std::vector<int>{1, 3, 4, 4}));
  Batch(layer.get());
  const std::vector<float> values = Batch(layer.get());  // frame 1
  const float mean[3] = {10, 20, 30};
  // TEST crops the centre: rows 1..4, columns 2..5.
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < 4; ++y) {
      for (int x = 0; x < 4; ++x) {
        const int pixel = frames_[1].pixels[((y + 1) * kWidth + x + 2) * 3 + c];
        EXPECT_EQ(values[(c * 4 + y) * 4 + x], (pixel - mean[c]) * 0.5f)
            << "c " << c << " y " << y << " x " << x;
      }
    }
  }
}

TEST_F(VideoDataLayerTest, ResizeParamResizesEachFrameBeforeTheMean) {
  // Intel's SSD webcam nets: resize_param WARP to the net's size, then the mean.
  auto layer = Make(Param(1,
                          "transform_param { mean_value: 104 mean_value: 117 mean_value: 123 "
                          "resize_param { prob: 1 resize_mode: WARP height: 3 width: 4 "
                          "interp_mode: LINEAR } }"));
  ASSERT_NE(layer, nullptr);
  EXPECT_EQ(data_.shape(), (std::vector<int>{1, 3, 3, 4}));
  const std::vector<float> values = Batch(layer.get());
  std::vector<uint8_t> resized(3 * 4 * 3);
  ResizeImage(frames_[0].view(), 3, 4, Interpolation::kLinear, resized.data());
  const float mean[3] = {104, 117, 123};
  for (int c = 0; c < 3; ++c) {
    for (int i = 0; i < 12; ++i) {
      EXPECT_EQ(values[c * 12 + i], resized[i * 3 + c] - mean[c]) << "c " << c << " i " << i;
    }
  }
}

TEST_F(VideoDataLayerTest, ShardsReadInterleavedFramesDrawingWhatOneReaderDraws) {
  // Without a transform: shard 1 of 2 reads frames 1, 3, then (after the end) 0.
  Tensor data1, label1;
  auto second = Make(Param(1), TEST, &data1, &label1);
  ASSERT_NE(second, nullptr);
  dynamic_cast<ShardedSource*>(second.get())->SetShard(1, 2);
  EXPECT_EQ(Batch(second.get(), &data1, &label1), Planes(1));
  EXPECT_EQ(Batch(second.get(), &data1, &label1), Planes(3));
  EXPECT_EQ(Batch(second.get(), &data1, &label1), Planes(0));

  // With TRAIN's random crop and mirror: shard i's k-th frame is the whole reader's item
  // 2k + i, values and all.
  const std::string random = "transform_param { crop_size: 3 mirror: true }";
  auto whole = Make(Param(6, random), TRAIN);
  ASSERT_NE(whole, nullptr);
  const std::vector<float> all = Batch(whole.get());
  const size_t item = 3 * 3 * 3;
  for (int shard = 0; shard < 2; ++shard) {
    Tensor data, label;
    auto part = Make(Param(1, random), TRAIN, &data, &label);
    ASSERT_NE(part, nullptr);
    dynamic_cast<ShardedSource*>(part.get())->SetShard(shard, 2);
    for (int k = 0; k < 3; ++k) {
      const size_t at = (2 * k + shard) * item;
      EXPECT_EQ(Batch(part.get(), &data, &label),
                std::vector<float>(all.begin() + at, all.begin() + at + item))
          << "shard " << shard << " frame " << k;
    }
  }
}

TEST_F(VideoDataLayerTest, AResumedLayerReadsAndDrawsWhatTheUninterruptedOneDoes) {
  const std::string random = "transform_param { crop_size: 4 mirror: true }";
  auto first = Make(Param(2, random), TRAIN);
  ASSERT_NE(first, nullptr);
  Batch(first.get());
  Batch(first.get());
  const std::string state = first->SaveState();
  EXPECT_EQ(state, "4");  // positions consumed: the next batch starts at frame 4
  const std::vector<float> next = Batch(first.get());

  Tensor data, label;
  auto resumed = Make(Param(2, random), TRAIN, &data, &label);
  ASSERT_NE(resumed, nullptr);
  ASSERT_TRUE(resumed->RestoreState(state).ok());
  EXPECT_EQ(Batch(resumed.get(), &data, &label), next);
  EXPECT_EQ(resumed->RestoreState("x").message(), "corrupt data position for layer 'video'");
}

TEST_F(VideoDataLayerTest, ACameraIsRefusedByName) {
  const std::string refused =
      "layer 'video' (VideoData): video_data_param.video_type WEBCAM (a camera) is not "
      "supported: dtrain reads video files; set video_type: VIDEO and video_file";
  // Intel's webcam nets say WEBCAM; a file that says nothing gets the field's default, WEBCAM.
  EXPECT_EQ(SetupError(testing::ParseLayerParameter(
                "name: 'video' type: 'VideoData' top: 'data' data_param { batch_size: 1 }\n"
                "video_data_param { video_type: WEBCAM device_id: 0 skip_frames: 0 }")),
            refused);
  EXPECT_EQ(SetupError(testing::ParseLayerParameter(
                "name: 'video' type: 'VideoData' top: 'data' data_param { batch_size: 1 }\n"
                "video_data_param { video_file: 'clip.mkv' }")),
            refused + " (WEBCAM is the field's default)");
}

TEST_F(VideoDataLayerTest, BadParametersAndFilesAreRefusedNamingTheLayer) {
  EXPECT_EQ(SetupError(testing::ParseLayerParameter(
                "name: 'video' type: 'VideoData' top: 'data' data_param { batch_size: 1 }\n"
                "video_data_param { video_type: VIDEO }")),
            "layer 'video' (VideoData): video_data_param.video_file is not set");
  EXPECT_EQ(SetupError(Param(0)),
            "layer 'video' (VideoData): data_param.batch_size must be positive");
  LayerParameter missing = Param(1);
  missing.mutable_video_data_param()->set_video_file(dir_.Path("gone.mp4"));
  EXPECT_EQ(SetupError(missing),
            "layer 'video' (VideoData): video '" + dir_.Path("gone.mp4") + "' does not exist");
  LayerParameter skipping = Param(1);
  skipping.mutable_video_data_param()->set_skip_frames(5);
  EXPECT_EQ(SetupError(skipping),
            "layer 'video' (VideoData): video '" + Video() +
                "' has 5 frame(s), fewer than video_data_param.skip_frames + 1 (6): no frame is "
                "read");
  EXPECT_EQ(SetupError(Param(1, "transform_param { crop_size: 7 }")),
            "layer 'video' (VideoData): video '" + Video() +
                "': crop_size 7 is larger than the image (3x6x8)");
  EXPECT_EQ(SetupError(Param(1, "transform_param { resize_param { height: 0 width: 4 } }")),
            "layer 'video' (VideoData): transform_param.resize_param.height must be positive");
  EXPECT_EQ(SetupError(Param(1,
                             "transform_param { crop_size: 2 resize_param { height: 3 width: 4 } "
                             "random_resize_param { min_size: 3 max_size: 4 } }")),
            "layer 'video' (VideoData): transform_param.resize_param together with "
            "transform_param.random_resize_param is not supported; give one of them");
  EXPECT_EQ(SetupError(Param(1, "transform_param { distort_param { brightness_prob: 1 } }")),
            "layer 'video' (VideoData): transform_param.distort_param: not supported by this data "
            "layer (dtrain applies the SSD fork's augmentations in AnnotatedData only)");
  // A batch beyond the machine, refused naming the video before anything is allocated.
  const std::string batch = SetupError(Param(2147483647));
  EXPECT_EQ(batch.rfind("layer 'video' (VideoData): video '" + Video() +
                            "': a batch of 2147483647 frames (data_param.batch_size): a tensor of "
                            "shape 2147483647 x 3 x 6 x 8 (309237645168 values, 1.1 TiB) is larger "
                            "than this machine's memory (",
                        0),
            0u)
      << batch;
}

}  // namespace
}  // namespace dtrain
