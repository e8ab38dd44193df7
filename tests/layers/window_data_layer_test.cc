// WindowData: which windows a batch holds (background first, then foreground), how a window is
// cut out, grown by context_pad or made square, warped, mirrored and mean-subtracted (checked
// against the window's pixels and against a resize of the region Caffe's arithmetic names), exact
// resume, and the refusals where Caffe would crash.
#include "layers/window_data_layer.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "../data/image_test_util.h"
#include "core/proto_io.h"
#include "testing/layer_test_util.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::MakeLayer;
using testing::TempDir;

// A height x width BGR image of one colour (b, b + 1, b + 2).
std::vector<uint8_t> Uniform(int height, int width, int b) {
  std::vector<uint8_t> pixels(static_cast<size_t>(height) * width * 3);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(b + i % 3);
  return pixels;
}

class WindowDataLayerTest : public ::testing::Test {
 protected:
  // Writes image `name` (PNG, lossless) of `bgr` pixels.
  void WriteImage(const std::string& name, const std::vector<uint8_t>& bgr, int height, int width) {
    testing::WriteBytes(dir_.Path(name), testing::BgrPng(bgr, height, width));
  }

  LayerParameter Param(const std::string& windows, int batch_size, int crop_size) {
    testing::WriteTextFile(dir_.Path("windows.txt"), windows);
    LayerParameter p;
    p.set_name("windows");
    p.set_type("WindowData");
    p.add_top("data");
    p.add_top("label");
    WindowDataParameter* w = p.mutable_window_data_param();
    w->set_source(dir_.Path("windows.txt"));
    w->set_root_folder(dir_.Path("") + "/");
    w->set_batch_size(batch_size);
    p.mutable_transform_param()->set_crop_size(crop_size);
    return p;
  }

  testing::LayerPtr SetUp(const LayerParameter& p, uint64_t seed = 1701) {
    auto layer = MakeLayer(p, TRAIN, seed);
    Status s = layer->Setup({}, top_);
    EXPECT_TRUE(s.ok()) << s.message();
    return layer;
  }

  void Forward(Layer* layer) {
    float loss;
    Status s = layer->Forward({}, top_, &loss);
    ASSERT_TRUE(s.ok()) << s.message();
  }

  // Item n of the last batch, as a vector.
  std::vector<float> Item(int n) const {
    const int size = data_.count(1);
    return std::vector<float>(data_.data() + n * size, data_.data() + (n + 1) * size);
  }

  TempDir dir_;
  Tensor data_, label_;
  TensorVec top_{&data_, &label_};
};

TEST_F(WindowDataLayerTest, AWindowOfTheCropSizeIsCopiedThenMeanAndScaleApply) {
  const std::vector<uint8_t> bgr = testing::GradientBgr(8, 10, 5);
  WriteImage("a.png", bgr, 8, 10);
  LayerParameter p = Param("# 0\na.png\n3\n8\n10\n1\n7 0.9 2 1 5 4\n", 2, 4);
  p.mutable_window_data_param()->set_fg_fraction(1.f);
  p.mutable_window_data_param()->set_scale(0.5f);
  for (float m : {1.f, 2.f, 3.f}) p.mutable_transform_param()->add_mean_value(m);
  auto layer = SetUp(p);
  EXPECT_EQ(data_.shape(), (std::vector<int>{2, 3, 4, 4}));
  EXPECT_EQ(label_.shape(), (std::vector<int>{2}));
  Forward(layer.get());
  for (int n = 0; n < 2; ++n) {
    EXPECT_EQ(label_.data()[n], 7.f);
    const std::vector<float> item = Item(n);
    for (int c = 0; c < 3; ++c) {
      for (int h = 0; h < 4; ++h) {
        for (int w = 0; w < 4; ++w) {
          const float pixel = bgr[((1 + h) * 10 + 2 + w) * 3 + c];
          EXPECT_EQ(item[(c * 4 + h) * 4 + w], (pixel - (c + 1)) * 0.5f) << c << h << w;
        }
      }
    }
  }
}

// As in Caffe, transform_param.scale does nothing on WindowData (window_data_param.scale does):
// the data is the pixels less the mean, unscaled.
TEST_F(WindowDataLayerTest, TransformParamScaleIsNotAppliedAsInCaffe) {
  const std::vector<uint8_t> bgr = testing::GradientBgr(8, 10, 5);
  WriteImage("a.png", bgr, 8, 10);
  LayerParameter p = Param("# 0\na.png\n3\n8\n10\n1\n7 0.9 2 1 5 4\n", 1, 4);
  p.mutable_window_data_param()->set_fg_fraction(1.f);
  p.mutable_transform_param()->set_scale(0.5f);
  auto layer = SetUp(p);
  Forward(layer.get());
  const std::vector<float> item = Item(0);
  EXPECT_EQ(item[0], static_cast<float>(bgr[(1 * 10 + 2) * 3]));
}

TEST_F(WindowDataLayerTest, BatchesHoldBackgroundThenForegroundWindows) {
  // One image per window, each of its own colour, so that the colour tells the window drawn.
  // Image 2's window lies between the thresholds and is never drawn.
  std::string windows;
  const struct {
    int label;
    const char* overlap;
  } rows[] = {{3, "0.9"}, {5, "0.7"}, {1, "0.4"}, {2, "0.1"}, {4, "0.0"}};
  for (int i = 0; i < 5; ++i) {
    WriteImage("i" + std::to_string(i) + ".png", Uniform(4, 4, 10 * (i + 1)), 4, 4);
    windows += "# " + std::to_string(i) + "\ni" + std::to_string(i) + ".png\n3 4 4\n1\n" +
               std::to_string(rows[i].label) + " " + rows[i].overlap + " 0 0 3 3\n";
  }
  LayerParameter p = Param(windows, 8, 4);
  p.mutable_window_data_param()->set_bg_threshold(0.3f);
  auto layer = SetUp(p);  // fg_fraction 0.25: 6 background, then 2 foreground
  std::set<int> seen;
  for (int batch = 0; batch < 5; ++batch) {
    Forward(layer.get());
    for (int n = 0; n < 8; ++n) {
      const int image = static_cast<int>(data_.data()[n * data_.count(1)]) / 10 - 1;
      seen.insert(image);
      const std::vector<float> item = Item(n);
      EXPECT_EQ(item.front(), item[15]) << "one colour per window";
      if (n < 6) {
        EXPECT_TRUE(image == 3 || image == 4) << "item " << n << " image " << image;
        EXPECT_EQ(label_.data()[n], 0.f) << "background windows have class 0";
      } else {
        ASSERT_TRUE(image == 0 || image == 1) << "item " << n << " image " << image;
        EXPECT_EQ(label_.data()[n], rows[image].label);
      }
    }
  }
  EXPECT_EQ(seen, (std::set<int>{0, 1, 3, 4}));
}

TEST_F(WindowDataLayerTest, ContextPadLeavesThePartOutsideTheImageAsZeroPadding) {
  // Window (2, 2)-(5, 5) of an 8 x 8 image, crop 8, context_pad 2: grown by 8 / 4 around its
  // centre (4, 4) to (0, 0)-(8, 8), one pixel past the image on the right and bottom. Warped by
  // 8 / 9, the 8 x 8 part inside becomes 7 x 7 at the top left, with one zero row and column
  // (mirrored: the zero column moves to the left).
  WriteImage("a.png", Uniform(8, 8, 100), 8, 8);
  LayerParameter p = Param("# 0 a.png 3 8 8 1\n1 1.0 2 2 5 5\n", 16, 8);
  p.mutable_window_data_param()->set_fg_fraction(1.f);
  p.mutable_window_data_param()->set_context_pad(2);
  p.mutable_transform_param()->set_mirror(true);
  auto layer = SetUp(p);
  Forward(layer.get());
  int mirrored = 0;
  for (int n = 0; n < 16; ++n) {
    const std::vector<float> item = Item(n);
    const bool flipped = item[0] == 0.f;
    mirrored += flipped;
    for (int c = 0; c < 3; ++c) {
      for (int h = 0; h < 8; ++h) {
        for (int w = 0; w < 8; ++w) {
          const bool inside = h < 7 && (flipped ? w >= 1 : w < 7);
          EXPECT_EQ(item[(c * 8 + h) * 8 + w], inside ? 100.f + c : 0.f)
              << "item " << n << " c " << c << " h " << h << " w " << w;
        }
      }
    }
  }
  EXPECT_GT(mirrored, 0);
  EXPECT_LT(mirrored, 16);
}

TEST_F(WindowDataLayerTest, SquareModeWarpsTheSquareAroundTheWindow) {
  // Window (4, 2)-(5, 9), 2 wide and 8 tall, of a 12 x 12 gradient: square mode reads the 9 x 9
  // square (1, 2)-(9, 10) around its centre (5, 6) and warps it to 4 x 4.
  const std::vector<uint8_t> bgr = testing::GradientBgr(12, 12, 1);
  WriteImage("a.png", bgr, 12, 12);
  LayerParameter p = Param("# 0 a.png 3 12 12 1\n1 1.0 4 2 5 9\n", 1, 4);
  p.mutable_window_data_param()->set_fg_fraction(1.f);
  p.mutable_window_data_param()->set_crop_mode("square");
  auto layer = SetUp(p);
  Forward(layer.get());
  std::vector<uint8_t> square;
  for (int y = 2; y <= 10; ++y) {
    for (int x = 1; x <= 9; ++x) {
      for (int c = 0; c < 3; ++c) square.push_back(bgr[(y * 12 + x) * 3 + c]);
    }
  }
  std::vector<uint8_t> warped(4 * 4 * 3);
  ResizeBilinear(HwcImage{square.data(), 3, 9, 9}, 4, 4, warped.data());
  const std::vector<float> item = Item(0);
  for (int c = 0; c < 3; ++c) {
    for (int i = 0; i < 16; ++i) EXPECT_EQ(item[c * 16 + i], warped[i * 3 + c]) << c << " " << i;
  }
}

TEST_F(WindowDataLayerTest, TheMeanFileIsReadCentredAroundTheCrop) {
  WriteImage("a.png", Uniform(6, 6, 50), 6, 6);
  BlobProto mean;
  mean.set_num(1);
  mean.set_channels(3);
  mean.set_height(6);
  mean.set_width(6);
  for (int i = 0; i < 3 * 36; ++i) mean.add_data(static_cast<float>(i));
  ASSERT_TRUE(WriteBinaryProtoAtomically(dir_.Path("mean.binaryproto"), mean).ok());
  LayerParameter p = Param("# 0 a.png 3 6 6 1\n1 1.0 1 1 4 4\n", 1, 4);
  p.mutable_window_data_param()->set_fg_fraction(1.f);
  p.mutable_transform_param()->set_mean_file(dir_.Path("mean.binaryproto"));
  auto layer = SetUp(p);
  Forward(layer.get());
  const std::vector<float> item = Item(0);
  for (int c = 0; c < 3; ++c) {
    for (int h = 0; h < 4; ++h) {
      for (int w = 0; w < 4; ++w) {  // the mean's offset is (6 - 4) / 2 = 1
        EXPECT_EQ(item[(c * 4 + h) * 4 + w], 50.f + c - (c * 36 + (h + 1) * 6 + w + 1));
      }
    }
  }
}

TEST_F(WindowDataLayerTest, ResumesExactlyFromItsSavedState) {
  std::string windows = "# 0 a.png 3 16 16 6\n";
  for (int i = 0; i < 6; ++i) {
    windows += std::to_string(i % 2 ? 0 : i + 1) + (i % 2 ? " 0.1 " : " 0.8 ") + std::to_string(i) +
               " " + std::to_string(i) + " " + std::to_string(8 + i) + " " + std::to_string(9 + i) +
               "\n";
  }
  WriteImage("a.png", testing::GradientBgr(16, 16, 2), 16, 16);
  LayerParameter p = Param(windows, 4, 6);
  p.mutable_window_data_param()->set_fg_fraction(0.5f);
  p.mutable_window_data_param()->set_context_pad(1);
  p.mutable_transform_param()->set_mirror(true);
  auto first = SetUp(p);
  Forward(first.get());
  const std::string state = first->SaveState();
  EXPECT_EQ(state, "1");
  Forward(first.get());
  const std::vector<float> second_batch(data_.data(), data_.data() + data_.count());
  const std::vector<float> second_labels(label_.data(), label_.data() + label_.count());

  auto resumed = SetUp(p);
  ASSERT_TRUE(resumed->RestoreState(state).ok());
  Forward(resumed.get());
  EXPECT_EQ(std::vector<float>(data_.data(), data_.data() + data_.count()), second_batch);
  EXPECT_EQ(std::vector<float>(label_.data(), label_.data() + label_.count()), second_labels);
  EXPECT_EQ(resumed->RestoreState("-3").message(),
            "corrupt data position '-3' for layer 'windows'");
}

TEST_F(WindowDataLayerTest, WhatCaffeWouldCrashOnIsRefusedByName) {
  WriteImage("a.png", Uniform(8, 10, 10), 8, 10);
  const std::string f = dir_.Path("windows.txt");
  auto setup_error = [&](const LayerParameter& p) {
    auto layer = MakeLayer(p, TRAIN, 1);
    return layer->Setup({}, top_).message();
  };
  // A window past the image's edge, in warp mode: Caffe's cv::Rect throws.
  {
    LayerParameter p = Param("# 0 a.png 3 8 10 1\n1 0.9 2 1 12 4\n", 1, 4);
    p.mutable_window_data_param()->set_fg_fraction(1.f);
    auto layer = SetUp(p);
    float loss;
    EXPECT_EQ(layer->Forward({}, top_, &loss).message(),
              "layer 'windows' (WindowData): " + f + ":2: window of image '" + dir_.Path("") +
                  "/a.png': window (2, 1, 12, 4) reaches outside the 10 x 8 image");
  }
  // Nothing to draw the batch's background from (Caffe divides by zero).
  EXPECT_EQ(setup_error(Param("# 0 a.png 3 8 10 1\n1 0.9 2 1 5 4\n", 4, 4)),
            "layer 'windows' (WindowData): window file '" + f + "' has no background window " +
                "(overlap < 0.500000) to fill 3 places of each batch");
  EXPECT_EQ(setup_error(Param("# 0 a.png 3 8 10 1\n1 0.9 2 1 5 4\n", 4, 0)),
            "layer 'windows' (WindowData): transform_param.crop_size must be in [1, 16384] "
            "(WindowData warps every window to crop_size x crop_size), got 0");
  LayerParameter pad = Param("# 0 a.png 3 8 10 1\n1 0.9 2 1 5 4\n", 4, 4);
  pad.mutable_window_data_param()->set_context_pad(2);
  EXPECT_EQ(setup_error(pad),
            "layer 'windows' (WindowData): window_data_param.context_pad 2 "
            "leaves no room in a crop of 4 (2 * context_pad must be less than "
            "crop_size)");
  EXPECT_EQ(setup_error(Param("# 1 a.png 3 8 10 0\n", 4, 4)),
            "layer 'windows' (WindowData): " + f +
                ":1: image index 1 where 0 was expected "
                "(images are numbered 0, 1, 2, ... in order)");
  LayerParameter missing = Param("", 4, 4);
  missing.mutable_window_data_param()->set_source(dir_.Path("none.txt"));
  auto layer = MakeLayer(missing, TRAIN, 1);
  EXPECT_EQ(layer->Setup({}, top_).code(), StatusCode::kNotFound);
}

TEST_F(WindowDataLayerTest, AMissingImageIsNamedWithItsWindow) {
  LayerParameter p = Param("# 0 gone.png 3 8 10 1\n1 0.9 2 1 5 4\n", 1, 4);
  p.mutable_window_data_param()->set_fg_fraction(1.f);
  auto layer = SetUp(p);
  float loss;
  EXPECT_EQ(layer->Forward({}, top_, &loss).message(),
            "layer 'windows' (WindowData): " + dir_.Path("windows.txt") + ":2: image '" +
                dir_.Path("") + "/gone.png': cannot open: No such file or directory");
}

}  // namespace
}  // namespace dtrain
