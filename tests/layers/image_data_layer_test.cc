#include "layers/image_data_layer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "../data/image_test_util.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;
using testing::TempDir;

constexpr int kHeight = 6, kWidth = 8;

class ImageDataLayerTest : public ::testing::Test {
 protected:
  // Writes `count` PNG images "img <i>.png" (a space in the name) under dir/root/, and the list
  // file dir/list.txt with labels 100 + i.
  void WriteImages(int count) {
    std::filesystem::create_directories(dir_.Path("root"));
    std::ofstream list(dir_.Path("list.txt"));
    for (int i = 0; i < count; ++i) {
      const std::string name = "img " + std::to_string(i) + ".png";
      testing::WriteBytes(
          dir_.Path("root/" + name),
          testing::BgrPng(testing::GradientBgr(kHeight, kWidth, 3 * i), kHeight, kWidth));
      list << name << " " << 100 + i << "\n";
    }
  }

  LayerParameter Param(int batch_size) const {
    LayerParameter p;
    p.set_name("images");
    p.set_type("ImageData");
    p.add_top("data");
    p.add_top("label");
    ImageDataParameter* image = p.mutable_image_data_param();
    image->set_source(dir_.Path("list.txt"));
    image->set_root_folder(dir_.Path("root") + "/");
    image->set_batch_size(batch_size);
    return p;
  }

  testing::LayerPtr SetUp(const LayerParameter& p, Phase phase = TRAIN, uint64_t seed = 1701) {
    auto layer = MakeLayer(p, phase, seed);
    Status s = layer->Setup({}, top_);
    EXPECT_TRUE(s.ok()) << s.message();
    return layer;
  }

  // Forwards once; returns the images of the batch and checks their labels. Image i's first
  // value (B at 0, 0) is 20 + 3i (GradientBgr's seed 3i).
  std::vector<int> Images(Layer* layer) {
    float loss;
    Status s = layer->Forward({}, top_, &loss);
    EXPECT_TRUE(s.ok()) << s.message();
    std::vector<int> images;
    if (!s.ok()) return images;
    const int size = data_.count(1);
    for (int n = 0; n < data_.shape(0); ++n) {
      const int image = static_cast<int>((data_.data()[n * size] - 20.f) / 3.f);
      images.push_back(image);
      EXPECT_EQ(label_.data()[n], 100.f + image) << "item " << n;
    }
    return images;
  }

  std::vector<float> Values(Layer* layer) {
    float loss;
    Status s = layer->Forward({}, top_, &loss);
    EXPECT_TRUE(s.ok()) << s.message();
    return std::vector<float>(data_.data(), data_.data() + data_.count());
  }

  TempDir dir_;
  Tensor data_, label_;
  TensorVec top_{&data_, &label_};
};

TEST_F(ImageDataLayerTest, ReadsTheListInOrderAndWrapsRound) {
  WriteImages(3);
  auto layer = SetUp(Param(2));
  EXPECT_EQ(data_.shape(), (std::vector<int>{2, 3, kHeight, kWidth}));
  EXPECT_EQ(Images(layer.get()), (std::vector<int>{0, 1}));
  // The whole tensor of image 1 is its BGR planes, exactly (PNG is lossless).
  const std::vector<uint8_t> bgr = testing::GradientBgr(kHeight, kWidth, 3);
  const float* item = data_.data() + data_.count(1);
  for (int c = 0; c < 3; ++c) {
    for (int i = 0; i < kHeight * kWidth; ++i) {
      EXPECT_EQ(item[c * kHeight * kWidth + i], bgr[i * 3 + c]) << "c " << c << " i " << i;
    }
  }
  EXPECT_EQ(Images(layer.get()), (std::vector<int>{2, 0}));
  EXPECT_EQ(Images(layer.get()), (std::vector<int>{1, 2}));
}

TEST_F(ImageDataLayerTest, GrayResizeAndTransform) {
  WriteImages(2);
  LayerParameter p = Param(2);
  p.mutable_image_data_param()->set_is_color(false);
  p.mutable_image_data_param()->set_new_height(3);
  p.mutable_image_data_param()->set_new_width(4);
  p.mutable_transform_param()->set_scale(0.5f);
  p.mutable_transform_param()->add_mean_value(10.f);
  auto layer = SetUp(p, TEST);
  EXPECT_EQ(data_.shape(), (std::vector<int>{2, 1, 3, 4}));
  // The expected gray image, resized, through the same decoder; then (v - 10) * 0.5.
  std::ifstream in(dir_.Path("root/img 1.png"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  StatusOr<ChwImage> expected = DecodeImage(bytes, ImageColor::kGray, 3, 4);
  ASSERT_TRUE(expected.ok());
  const std::vector<float> values = Values(layer.get());
  for (int i = 0; i < 12; ++i) EXPECT_EQ(values[12 + i], (expected->pixels[i] - 10.f) * 0.5f) << i;
  EXPECT_EQ(label_.data()[1], 101.f);
}

TEST_F(ImageDataLayerTest, ShuffleIsAPermutationPerEpochFixedByTheSeed) {
  WriteImages(10);
  LayerParameter p = Param(5);
  p.mutable_image_data_param()->set_shuffle(true);
  auto epochs = [&](uint64_t seed) {
    auto layer = SetUp(p, TRAIN, seed);
    std::vector<int> order;
    for (int i = 0; i < 4; ++i) {
      const std::vector<int> batch = Images(layer.get());
      order.insert(order.end(), batch.begin(), batch.end());
    }
    return order;
  };
  const std::vector<int> a = epochs(1), b = epochs(1), c = epochs(2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::vector<int> first(a.begin(), a.begin() + 10), second(a.begin() + 10, a.end());
  EXPECT_NE(first, second);  // a new permutation each epoch
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(first, all);
  EXPECT_EQ(second, all);
}

// Random crops and mirrors depend on the image's position only, not on the decode threads.
TEST_F(ImageDataLayerTest, CropAndMirrorAreTheSameForOneAndFourThreads) {
  WriteImages(7);
  LayerParameter p = Param(4);
  p.mutable_transform_param()->set_crop_size(4);
  p.mutable_transform_param()->set_mirror(true);
  p.mutable_image_data_param()->set_shuffle(true);
  std::vector<float> runs[2];
  for (int run = 0; run < 2; ++run) {
    p.mutable_image_data_param()->set_decode_threads(run == 0 ? 1 : 4);
    auto layer = SetUp(p);
    EXPECT_EQ(static_cast<ImageDataLayer*>(layer.get())->decode_threads(), run == 0 ? 1 : 4);
    for (int i = 0; i < 3; ++i) {
      const std::vector<float> values = Values(layer.get());
      runs[run].insert(runs[run].end(), values.begin(), values.end());
    }
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(data_.shape(), (std::vector<int>{4, 3, 4, 4}));
}

// Two shards of batch 2, interleaved, are one reader of batch 4: the same images, crops, mirrors.
TEST_F(ImageDataLayerTest, TwoShardsInterleavedAreOneReader) {
  WriteImages(5);
  LayerParameter p = Param(4);
  p.mutable_transform_param()->set_crop_size(5);
  p.mutable_transform_param()->set_mirror(true);
  p.mutable_image_data_param()->set_shuffle(true);
  auto whole = SetUp(p);
  std::vector<float> expected;
  for (int i = 0; i < 3; ++i) {
    const std::vector<float> values = Values(whole.get());
    expected.insert(expected.end(), values.begin(), values.end());
  }
  p.mutable_image_data_param()->set_batch_size(2);
  std::vector<float> shards[2];
  for (int shard = 0; shard < 2; ++shard) {
    auto layer = MakeLayer(p, TRAIN, 1701);
    static_cast<ImageDataLayer*>(layer.get())->SetShard(shard, 2);
    ASSERT_TRUE(layer->Setup({}, top_).ok());
    for (int i = 0; i < 3; ++i) {
      const std::vector<float> values = Values(layer.get());
      shards[shard].insert(shards[shard].end(), values.begin(), values.end());
    }
  }
  const int image = 3 * 5 * 5;
  for (int position = 0; position < 12; ++position) {
    const float* from = &shards[position % 2][(position / 2) * image];
    for (int j = 0; j < image; ++j) {
      ASSERT_EQ(from[j], expected[position * image + j])
          << "position " << position << " value " << j;
    }
  }
}

TEST_F(ImageDataLayerTest, SavedStateResumesExactly) {
  WriteImages(5);
  LayerParameter p = Param(3);
  p.mutable_transform_param()->set_crop_size(4);
  p.mutable_transform_param()->set_mirror(true);
  p.mutable_image_data_param()->set_shuffle(true);
  auto a = SetUp(p);
  Values(a.get());
  Values(a.get());
  const std::string state = a->SaveState();  // batches have been read ahead by now
  const std::vector<float> third = Values(a.get());
  const std::vector<float> fourth = Values(a.get());
  auto b = SetUp(p);
  Values(b.get());
  Status s = b->RestoreState(state);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Values(b.get()), third);
  EXPECT_EQ(Values(b.get()), fourth);
  EXPECT_EQ(b->RestoreState("garbage").message(), "corrupt data position for layer 'images'");
}

// Image 1 is cut short (a truncated JPEG), image 3 is missing.
void BreakImages(const TempDir& dir) {
  const std::vector<uint8_t> bgr = testing::GradientBgr(kHeight * 8, kWidth * 8);
  const std::string jpeg = testing::JpegBytes(bgr, kHeight * 8, kWidth * 8, 3);
  testing::WriteBytes(dir.Path("root/img 1.png"), jpeg.substr(0, jpeg.size() * 3 / 4));
  std::filesystem::remove(dir.Path("root/img 3.png"));
}

TEST_F(ImageDataLayerTest, CorruptImageFailsForwardWithLayerLineAndPath) {
  WriteImages(4);
  BreakImages(dir_);
  auto layer = SetUp(Param(2));
  float loss;
  Status s = layer->Forward({}, top_, &loss);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(
      s.message().rfind("layer 'images' (ImageData): " + dir_.Path("list.txt") + ":2: image '" +
                            dir_.Path("root") + "/img 1.png': corrupt or truncated JPEG: ",
                        0),
      0u)
      << s.message();
}

TEST_F(ImageDataLayerTest, MissingImageFailsForwardWithItsPath) {
  WriteImages(4);
  std::filesystem::remove(dir_.Path("root/img 1.png"));
  auto layer = SetUp(Param(2));
  float loss;
  Status s = layer->Forward({}, top_, &loss);
  EXPECT_EQ(s.message(), "layer 'images' (ImageData): " + dir_.Path("list.txt") + ":2: image '" +
                             dir_.Path("root") +
                             "/img 1.png': cannot open: No such file or directory");
}

TEST_F(ImageDataLayerTest, SkipBadImagesCountsThemAndTakesTheNext) {
  WriteImages(4);
  BreakImages(dir_);
  LayerParameter p = Param(3);
  p.mutable_image_data_param()->set_skip_bad_images(true);
  p.mutable_image_data_param()->set_decode_threads(2);
  auto layer = SetUp(p);
  auto* images = static_cast<ImageDataLayer*>(layer.get());
  // Positions 0 1 2: image 1 is bad; its slot takes position 3 (missing), then 4 (image 0).
  EXPECT_EQ(Images(layer.get()), (std::vector<int>{0, 0, 2}));
  EXPECT_EQ(images->bad_images(), 2);
  // Positions 5 6 7 (images 1 2 3): slot 0 takes 8 (image 0); slot 2 takes 9 (bad), then 10.
  EXPECT_EQ(Images(layer.get()), (std::vector<int>{0, 2, 2}));
  EXPECT_EQ(images->bad_images(), 5);
}

TEST_F(ImageDataLayerTest, EveryImageBadIsStillAnError) {
  WriteImages(2);
  testing::WriteBytes(dir_.Path("root/img 1.png"), "not an image");
  LayerParameter p = Param(1);
  p.mutable_image_data_param()->set_skip_bad_images(true);
  p.mutable_image_data_param()->set_prefetch(1);
  auto layer = SetUp(p);
  ASSERT_EQ(Images(layer.get()), (std::vector<int>{0}));
  testing::WriteBytes(dir_.Path("root/img 0.png"), "not an image either");
  float loss;
  Status s;
  for (int i = 0; i < 10 && s.ok(); ++i) s = layer->Forward({}, top_, &loss);
  EXPECT_NE(s.message().find("bad images while filling one batch, more than the 2 listed"),
            std::string::npos)
      << s.message();
}

// Without crop_size or a resize, a batch takes its shape from its first image.
TEST_F(ImageDataLayerTest, ImagesOfAnotherSizeThanTheBatchAreBad) {
  WriteImages(3);
  testing::WriteBytes(dir_.Path("root/img 1.png"),
                      testing::BgrPng(testing::GradientBgr(4, 5), 4, 5));
  auto layer = SetUp(Param(3));
  float loss;
  EXPECT_EQ(layer->Forward({}, top_, &loss).message(),
            "layer 'images' (ImageData): " + dir_.Path("list.txt") + ":2: image '" +
                dir_.Path("root") +
                "/img 1.png': is 3x4x5 but this batch's first image is 3x6x8 (set "
                "new_height/new_width or crop_size for images of mixed sizes)");
  LayerParameter p = Param(3);
  p.mutable_image_data_param()->set_new_height(4);
  p.mutable_image_data_param()->set_new_width(4);
  auto resized = SetUp(p);
  Values(resized.get());
  EXPECT_EQ(data_.shape(), (std::vector<int>{3, 3, 4, 4}));
}

TEST_F(ImageDataLayerTest, ListErrorsNameTheFileAndLine) {
  WriteImages(2);
  auto setup_error = [&](const std::string& list_text) {
    testing::WriteBytes(dir_.Path("list.txt"), list_text);
    auto layer = MakeLayer(Param(1), TRAIN);
    return layer->Setup({}, top_).message();
  };
  const std::string list = dir_.Path("list.txt");
  EXPECT_EQ(setup_error("img 0.png 1\nimg1.png\n"),
            "layer 'images' (ImageData): " + list + ":2: expected 'path label', got 'img1.png'");
  EXPECT_EQ(setup_error("img 0.png 1\n\nimg 1.png x7\n"),
            "layer 'images' (ImageData): " + list +
                ":3: label 'x7' is not an integer (the label is the text after the last space)");
  EXPECT_EQ(setup_error("\n\n"),
            "layer 'images' (ImageData): image list '" + list + "' lists no images");
  std::filesystem::remove(list);
  auto layer = MakeLayer(Param(1), TRAIN);
  EXPECT_EQ(layer->Setup({}, top_).message(),
            "layer 'images' (ImageData): image list '" + list + "' does not exist");
}

}  // namespace
}  // namespace dtrain
