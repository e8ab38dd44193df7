// Hostile input: Intel Caffe's transform_param additions (random_resize_param,
// random_aspect_ratio_param, pad) with values outside their meaning. `dtrain check` refuses the
// fields before any record is read, naming the layer and the field; what only an image can show
// (a crop larger than the resized image, a size range the image leaves empty) stops the run at
// the first batch naming the layer, the LMDB, the record and the field. Exit 1, never a signal.
#include <gtest/gtest.h>

#include <string>

#include "data/data_test_util.h"
#include "hostile/hostile.h"

namespace dtrain {
namespace {

using testing::RunDtrainWithin;
using testing::TempDir;
using testing::WriteTextFile;

// A net of one Data layer over `source` with `transform` as its transform_param.
std::string DataNet(const std::string& source, const std::string& transform) {
  return "name: 'intel'\n"
         "layer { name: 'data' type: 'Data' top: 'data' top: 'label'\n"
         "  data_param { source: '" +
         source + "' batch_size: 2 backend: LMDB }\n  transform_param { " + transform + " } }\n";
}

TEST(IntelTransforms, FieldsOutsideTheirMeaningAreRefusedByCheck) {
  TempDir dir;
  testing::WriteTinyLmdb(dir.Path("db"), 2, 3, 40, 40);
  const struct {
    std::string transform, error;
  } cases[] = {
      {"crop_size: 8 random_resize_param { min_size: 300 max_size: 200 }",
       "layer 'data' (Data): transform_param.random_resize_param: min_size 300 is more than "
       "max_size 200"},
      {"random_resize_param { min_size: 0 max_size: 0 }",
       "layer 'data' (Data): transform_param.random_resize_param needs crop_size"},
      {"crop_size: 224 random_resize_param { min_size: 100 max_size: 256 }",
       "layer 'data' (Data): transform_param.random_resize_param.min_size 100 is less than "
       "crop_size 224"},
      {"crop_size: 8 random_resize_param { min_size: 8 max_size: 4000000000 }",
       "layer 'data' (Data): transform_param.random_resize_param: an image resized to a shorter "
       "side of 4000000000 takes at least "},
      {"crop_size: 8 random_aspect_ratio_param { min_area_ratio: 0.9 max_area_ratio: 0.2 }",
       "layer 'data' (Data): transform_param.random_aspect_ratio_param: min_area_ratio 0.9 is "
       "more than max_area_ratio 0.2"},
      {"crop_size: 8 random_aspect_ratio_param { min_area_ratio: -0.5 }",
       "layer 'data' (Data): transform_param.random_aspect_ratio_param.min_area_ratio -0.5 is "
       "outside (0, 1]"},
      {"crop_size: 8 random_aspect_ratio_param { max_area_ratio: 2 }",
       "layer 'data' (Data): transform_param.random_aspect_ratio_param.max_area_ratio 2 is outside "
       "(0, 1]"},
      {"crop_size: 8 random_aspect_ratio_param { aspect_ratio_change: 0 }",
       "layer 'data' (Data): transform_param.random_aspect_ratio_param.aspect_ratio_change 0 is "
       "outside (0, 1]"},
      {"crop_size: 8 random_aspect_ratio_param { aspect_ratio_change: 1.5 }",
       "transform_param.random_aspect_ratio_param.aspect_ratio_change 1.5 is outside (0, 1]"},
      {"crop_size: 8 random_resize_param { min_size: 8 max_size: 8 resize_param { resize_mode: "
       "FIT_LARGE_SIZE_AND_PAD } }",
       "transform_param.random_resize_param.resize_param.resize_mode FIT_LARGE_SIZE_AND_PAD: "
       "dtrain resizes as Intel Caffe's WARP only"},
      {"crop_size: 8 random_resize_param { min_size: 8 max_size: 8 } random_aspect_ratio_param { "
       "}",
       "transform_param.random_aspect_ratio_param with random_resize_param: Intel Caffe applies "
       "only random_resize_param when both are given; keep one"},
      {"pad: 2 mean_file: 'mean.binaryproto'", "transform_param.pad with mean_file"},
      {"pad: 2000000000",
       "transform_param.pad 2000000000 makes an output side of 4000000000, "
       "more than a dimension may be (2147483647)"},
  };
  for (const auto& c : cases) {
    WriteTextFile(dir.Path("net.prototxt"), DataNet(dir.Path("db"), c.transform));
    EXPECT_REFUSED_WITH(RunDtrainWithin(60, "check --model=" + dir.Path("net.prototxt")), c.error);
  }
}

// Intel's meaning, kept: max_attempt 0 always takes the fallback (shorter side to crop_size),
// min_size 0 and max_size 0 draw between the image's sides.
TEST(IntelTransforms, MaxAttemptZeroAndZeroSizesRunAsInIntelCaffe) {
  TempDir dir;
  testing::WriteTinyLmdb(dir.Path("db"), 4, 3, 30, 50);
  for (const std::string transform :
       {"crop_size: 16 random_aspect_ratio_param { max_attempt: 0 }",
        "crop_size: 30 random_resize_param { min_size: 0 max_size: 0 }"}) {
    WriteTextFile(dir.Path("net.prototxt"), DataNet(dir.Path("db"), transform));
    const auto r = RunDtrainWithin(60, "time --iterations=2 --model=" + dir.Path("net.prototxt"));
    EXPECT_EQ(r.exit_code, 0) << transform << "\n" << r.output;
  }
}

// What only the image shows: refused at the first batch, naming the record and the field.
TEST(IntelTransforms, ACropLargerThanTheResizedImageStopsTheRunNamingTheRecord) {
  TempDir dir;
  testing::WriteTinyLmdb(dir.Path("db"), 4, 3, 30, 30);
  // Sizes 0: the shorter side stays 30, under the crop of 40.
  WriteTextFile(dir.Path("net.prototxt"),
                DataNet(dir.Path("db"), "crop_size: 40 random_resize_param { }"));
  EXPECT_REFUSED_WITH(
      RunDtrainWithin(60, "time --iterations=1 --model=" + dir.Path("net.prototxt")),
      "record '00000000': after transform_param.random_resize_param resized the 3x30x30 image: "
      "crop_size 40 is larger than the image (3x30x30)");
  // max_size 0 is the image's longer side (30), below min_size 40.
  WriteTextFile(dir.Path("net.prototxt"),
                DataNet(dir.Path("db"), "crop_size: 8 random_resize_param { min_size: 40 }"));
  EXPECT_REFUSED_WITH(
      RunDtrainWithin(60, "time --iterations=1 --model=" + dir.Path("net.prototxt")),
      "transform_param.random_resize_param: for this 30x30 image, min_size 40 is more than "
      "max_size 0 (its longer side, 30)");
}

// WindowData never applied them in Intel Caffe: refused, not ignored.
TEST(IntelTransforms, WindowDataRefusesThemByName) {
  TempDir dir;
  WriteTextFile(dir.Path("windows.txt"), "");
  WriteTextFile(dir.Path("net.prototxt"),
                "layer { name: 'win' type: 'WindowData' top: 'data' top: 'label'\n"
                "  window_data_param { source: '" +
                    dir.Path("windows.txt") +
                    "' batch_size: 2 }\n"
                    "  transform_param { crop_size: 8 pad: 1 } }\n");
  EXPECT_REFUSED_WITH(RunDtrainWithin(60, "check --model=" + dir.Path("net.prototxt")),
                      "transform_param.pad: Intel Caffe's WindowData never applies it (it warps "
                      "each window itself)");
}

}  // namespace
}  // namespace dtrain
