// Hostile input to convolutions over N spatial axes (layers/base_convolution_layer.h): lists of
// the wrong length, 2-D-only fields on volumes, axes out of range, windows that leave no output
// and sizes no machine holds are refused by `dtrain check`, naming the layer and the field or the
// figure, before anything is allocated. Every run is under a time limit and must exit 1.
#include <gtest/gtest.h>

#include <string>

#include "hostile/hostile.h"
#include "testing/files.h"

namespace dtrain {
namespace {

using testing::RunDtrainWithin;
using testing::TempDir;
using testing::WriteTextFile;

// `dtrain check` of a net of one Input of `dims` and one layer `type` named 'v' with `fields`
// (its convolution_param) and `extra` (other LayerParameter fields).
testing::CommandResult Check(const std::string& dims, const std::string& type,
                             const std::string& fields, const std::string& extra = "") {
  TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"),
                "name: 'volumes'\n"
                "layer { name: 'in' type: 'Input' top: 'x' input_param { shape { " +
                    dims +
                    " } } }\n"
                    "layer { name: 'v' type: '" +
                    type + "' bottom: 'x' top: 'y' " + extra + " convolution_param { " + fields +
                    " } }\n");
  return RunDtrainWithin(120, "check --model=" + dir.Path("net.prototxt"));
}

const char kVolume[] = "dim: 1 dim: 2 dim: 8 dim: 8 dim: 4";

TEST(HostileConvolutionAxes, AKernelLargerThanThePaddedVolumeNamesTheLayer) {
  EXPECT_REFUSED_WITH(Check(kVolume, "Convolution",
                            "num_output: 1 kernel_size: 3 kernel_size: 3 "
                            "kernel_size: 7"),
                      "layer 'v' (Convolution): kernel 3x3x7 (dilated) with pad 0x0x0 gives no "
                      "output for bottom shape 1 2 8 8 4 (512)");
  EXPECT_REFUSED_WITH(Check(kVolume, "Deconvolution", "num_output: 1 kernel_size: 1 pad: 5"),
                      "layer 'v' (Deconvolution): kernel 1x1x1 (dilated) with pad 5x5x5 gives no "
                      "output for bottom shape 1 2 8 8 4 (512)");
}

TEST(HostileConvolutionAxes, AListOfNeitherOneNorOneValuePerAxisIsRefused) {
  EXPECT_REFUSED_WITH(Check(kVolume, "Convolution", "num_output: 1 kernel_size: 3 kernel_size: 3"),
                      "layer 'v' (Convolution): kernel_size must be given once, or once per "
                      "spatial axis (3), got 2 values");
  EXPECT_REFUSED_WITH(
      Check(kVolume, "Deconvolution",
            "num_output: 1 kernel_size: 2 dilation: 1 dilation: 1 dilation: 1 dilation: 1"),
      "layer 'v' (Deconvolution): dilation must be given once, or once per spatial axis (3), got "
      "4 values");
}

TEST(HostileConvolutionAxes, TheHwFieldsOnAVolumeAreRefused) {
  EXPECT_REFUSED_WITH(Check(kVolume, "Convolution", "num_output: 1 kernel_h: 3 kernel_w: 3"),
                      "layer 'v' (Convolution): kernel_h/kernel_w apply to 2-D convolution only, "
                      "but the bottom has 3 spatial axes; give kernel_size instead");
  EXPECT_REFUSED_WITH(Check(kVolume, "Convolution",
                            "num_output: 1 kernel_size: 3 stride_h: 2 "
                            "stride_w: 2"),
                      "layer 'v' (Convolution): stride_h/stride_w apply to 2-D convolution only, "
                      "but the bottom has 3 spatial axes; give stride instead");
}

TEST(HostileConvolutionAxes, AnAxisOutOfRangeIsRefused) {
  EXPECT_REFUSED_WITH(Check(kVolume, "Convolution", "num_output: 1 kernel_size: 1 axis: 7"),
                      "layer 'v' (Convolution): convolution_param.axis 7 is out of range for "
                      "bottom shape 1 2 8 8 4 (512) (5 axes)");
  EXPECT_REFUSED_WITH(Check(kVolume, "Deconvolution", "num_output: 1 kernel_size: 1 axis: -1"),
                      "layer 'v' (Deconvolution): needs a spatial axis after the channel axis 4, "
                      "got bottom shape 1 2 8 8 4 (512)");
}

TEST(HostileConvolutionAxes, AbsurdSizesAreRefusedBeforeAllocating) {
  // A window field beyond an int.
  EXPECT_REFUSED_WITH(Check(kVolume, "Convolution", "num_output: 1 kernel_size: 4294967295"),
                      "layer 'v' (Convolution): kernel_size is 4294967295, more than a dimension "
                      "may be (2147483647)");
  // Weights of 16 x 2 x 2000^3 values (padding makes the window fit).
  EXPECT_REFUSED_WITH(Check(kVolume, "Convolution", "num_output: 16 kernel_size: 2000 pad: 1000"),
                      "layer 'v' (Convolution): a tensor of shape 16 x 2 x 2000 x 2000 x 2000 "
                      "(256000000000 values, 953.7 GiB) is larger than this machine's memory");
  // A Deconvolution whose top would not fit an int along an axis.
  EXPECT_REFUSED_WITH(Check(kVolume, "Deconvolution",
                            "num_output: 1 kernel_size: 1 "
                            "stride: 1000000000"),
                      "layer 'v' (Deconvolution): along spatial axis 0 the top would be "
                      "7000000001, more than a dimension may be (2147483647), for bottom shape "
                      "1 2 8 8 4 (512)");
  // The reference's column matrix: 64 channels x 31^3 taps x 64^3 positions, about 2 TiB, where
  // the tensors are small.
  EXPECT_REFUSED_WITH(Check("dim: 1 dim: 64 dim: 64 dim: 64 dim: 64", "Convolution",
                            "num_output: 1 kernel_size: 31 pad: 15", "engine: 'REFERENCE'"),
                      "layer 'v' (Convolution): engine REFERENCE requested, but the reference "
                      "declines: the reference convolution's column matrix of 499810041856 "
                      "values (1.8 TiB) is larger than this machine's memory");
  EXPECT_REFUSED_WITH(Check("dim: 1 dim: 64 dim: 64 dim: 64 dim: 64", "Deconvolution",
                            "num_output: 64 kernel_size: 31 pad: 15", "engine: 'REFERENCE'"),
                      "layer 'v' (Deconvolution): engine REFERENCE requested, but the reference "
                      "declines: the reference convolution's column matrix of 499810041856 "
                      "values (1.8 TiB) is larger than this machine's memory");
}

TEST(HostileConvolutionAxes, MoreSpatialAxesThanABlobHoldsAreRefused) {
  std::string dims = "dim: 1 dim: 1";
  for (int i = 0; i < 31; ++i) dims += " dim: 1";
  EXPECT_REFUSED_WITH(Check(dims, "Convolution", "num_output: 1 kernel_size: 1"),
                      "layer 'v' (Convolution): takes at most 30 spatial axes, got 31 after the "
                      "channel axis 1");
}

}  // namespace
}  // namespace dtrain
