// DetectionOutput's result files (save_output_param): the SSD fork's VOC, COCO and ILSVRC files,
// the boxes in pixels of the images of name_size_file, written after every num_test_image images.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "detection_output_inputs.h"
#include "layers/detection_output_layer.h"
#include "testing/files.h"
#include "testing/layer_test_util.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::MakeLayer;
using testing::ReadFile;

// detection_output_inputs.h's bottoms: class 1 scores 0.7 (P0) and 0.3 (P1), class 2 0.5 (P1)
// above the 0.25 threshold. In pixels of a 100 x 200 (height x width) image: P0 (20, 10)-(60, 30),
// P1 decoded to (120, 50)-(180, 90).
using Inputs = testing::DetectionOutputInputs;

class DetectionOutputSavingTest : public ::testing::Test {
 protected:
  DetectionOutputSavingTest() {
    testing::WriteTextFile(dir_.Path("labels.prototxt"),
                           "item { name: 'none' label: 0 } item { name: 'cat' label: 1 }\n"
                           "item { name: 'dog' label: 2 display_name: 'Dog' }\n");
    testing::WriteTextFile(dir_.Path("sizes.txt"), "img1 100 200\nimg2 50 50\n");
  }
  std::string Param(const std::string& save) const {
    return "name: 'det' type: 'DetectionOutput' detection_output_param { num_classes: 3 "
           "confidence_threshold: 0.25 save_output_param { output_directory: '" +
           dir_.Path("out") + "' label_map_file: '" + dir_.Path("labels.prototxt") +
           "' name_size_file: '" + dir_.Path("sizes.txt") + "' " + save + " } }";
  }
  Status SetupAndForward(const std::string& save, int forwards = 1) {
    layer_ = MakeLayer(Param(save));
    if (!layer_) return InvalidArgument("not built");
    DT_RETURN_IF_ERROR(layer_->Setup(in_.bottoms(), in_.tops()));
    for (int i = 0; i < forwards; ++i) {
      DT_RETURN_IF_ERROR(layer_->Forward(in_.bottoms(), in_.tops(), nullptr));
    }
    return Status::Ok();
  }
  std::string Out(const std::string& name) const { return ReadFile(dir_.Path("out/" + name)); }

  testing::TempDir dir_;
  Inputs in_;
  testing::LayerPtr layer_;
};

TEST_F(DetectionOutputSavingTest, VocFilesPerClassAfterEveryNumTestImage) {
  ASSERT_TRUE(SetupAndForward("output_format: 'VOC' output_name_prefix: 'comp4_' "
                              "num_test_image: 1")
                  .ok());
  EXPECT_EQ(Out("comp4_cat.txt"), "img1 0.7 20 10 60 30\nimg1 0.3 120 50 180 90\n");
  EXPECT_EQ(Out("comp4_dog.txt"), "img1 0.5 120 50 180 90\n");
  EXPECT_FALSE(std::filesystem::exists(dir_.Path("out/comp4_none.txt")));
  // Two images per file: nothing is written until the second, then both (img2 is 50 x 50).
  std::filesystem::remove_all(dir_.Path("out"));
  ASSERT_TRUE(SetupAndForward("output_format: 'VOC'").ok());
  EXPECT_FALSE(std::filesystem::exists(dir_.Path("out/cat.txt")));
  ASSERT_TRUE(layer_->Forward(in_.bottoms(), in_.tops(), nullptr).ok());
  EXPECT_EQ(Out("dog.txt"), "img1 0.5 120 50 180 90\nimg2 0.5 30 25 45 45\n");
}

TEST_F(DetectionOutputSavingTest, CocoAndIlsvrcFiles) {
  ASSERT_TRUE(
      SetupAndForward("output_format: 'COCO' output_name_prefix: 'det' num_test_image: 1").ok());
  EXPECT_EQ(Out("det.json"),
            "[\n"
            "  {\"image_id\": \"img1\", \"category_id\": \"cat\", \"bbox\": [20, 10, 40, 20], "
            "\"score\": 0.7},\n"
            "  {\"image_id\": \"img1\", \"category_id\": \"cat\", \"bbox\": [120, 50, 60, 40], "
            "\"score\": 0.3},\n"
            "  {\"image_id\": \"img1\", \"category_id\": \"dog\", \"bbox\": [120, 50, 60, 40], "
            "\"score\": 0.5}\n"
            "]\n");
  ASSERT_TRUE(
      SetupAndForward("output_format: 'ILSVRC' output_name_prefix: 'det' num_test_image: 1").ok());
  EXPECT_EQ(Out("det.txt"),
            "img1 1 0.7 20 10 60 30\nimg1 1 0.3 120 50 180 90\nimg1 2 0.5 120 50 180 90\n");
}

// The fork empties output_directory first; dtrain writes its own files and leaves the rest.
TEST_F(DetectionOutputSavingTest, OtherFilesInTheDirectoryAreKept) {
  std::filesystem::create_directories(dir_.Path("out"));
  testing::WriteTextFile(dir_.Path("out/notes.txt"), "mine\n");
  ASSERT_TRUE(SetupAndForward("output_format: 'VOC' num_test_image: 1").ok());
  EXPECT_EQ(Out("notes.txt"), "mine\n");
  EXPECT_FALSE(Out("cat.txt").empty());
}

TEST_F(DetectionOutputSavingTest, BadSettingsAreNamed) {
  const std::string prefix =
      "layer 'det' (DetectionOutput): detection_output_param.save_output_param";
  EXPECT_EQ(SetupAndForward("output_format: 'PASCAL'").message(),
            prefix + ".output_format must be VOC, COCO or ILSVRC, got \"PASCAL\"");
  EXPECT_EQ(SetupAndForward("output_format: 'VOC' num_test_image: 3").message(),
            prefix + ".num_test_image 3 must be between 1 and the 2 images of name_size_file");
  testing::WriteTextFile(dir_.Path("labels.prototxt"), "item { name: 'cat' label: 1 }\n");
  EXPECT_EQ(SetupAndForward("output_format: 'VOC'").message(),
            prefix + ".label_map_file '" + dir_.Path("labels.prototxt") +
                "' has no name for class 2 (num_classes is 3)");
  testing::WriteTextFile(dir_.Path("sizes.txt"), "img1 100\n");
  testing::WriteTextFile(dir_.Path("labels.prototxt"),
                         "item { name: 'cat' label: 1 } item { name: 'dog' label: 2 }\n");
  EXPECT_EQ(SetupAndForward("output_format: 'VOC'").message(),
            prefix + ".name_size_file '" + dir_.Path("sizes.txt") +
                "' line 1: expected \"name height width\" with positive sizes, got \"img1 100\"");
  auto layer = MakeLayer(
      "name: 'det' type: 'DetectionOutput' detection_output_param { num_classes: 3 "
      "save_output_param { output_directory: '" +
      dir_.Path("out") + "' } }");
  EXPECT_EQ(layer->Setup(in_.bottoms(), in_.tops()).message(),
            prefix +
                ".output_directory needs label_map_file and name_size_file (the fork silently "
                "saves nothing without them)");
}

TEST_F(DetectionOutputSavingTest, RefusedInAJobOfSeveralRanks) {
  testing::WriteTextFile(dir_.Path("sizes.txt"), "img1 100 200\n");
  layer_ = MakeLayer(Param("output_format: 'VOC'"));
  ASSERT_TRUE(layer_->Setup(in_.bottoms(), in_.tops()).ok());
  static_cast<DetectionOutputLayer*>(layer_.get())->SetShard(1, 2);
  EXPECT_EQ(layer_->Forward(in_.bottoms(), in_.tops(), nullptr).message(),
            "layer 'det' (DetectionOutput): detection_output_param.save_output_param in a job of "
            "2 ranks is not supported yet: each rank sees only its share of the test images "
            "(write the result files with `dtrain test` in one process)");
}

}  // namespace
}  // namespace dtrain
