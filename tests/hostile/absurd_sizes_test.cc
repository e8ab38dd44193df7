// Hostile input: absurd sizes in a net file are refused, naming the layer
// and the field (or the tensor and the figure), before anything is allocated; in `dtrain check`
// as in training. Every run is under a time limit and must exit 1 (a refusal), never by a signal.
#include <gtest/gtest.h>

#include <string>

#include "core/machine_memory.h"
#include "hostile/hostile.h"
#include "testing/files.h"

namespace dtrain {
namespace {

using testing::RunDtrainWithin;
using testing::TempDir;
using testing::WriteTextFile;

// `dtrain check` of a net file holding `layers`.
testing::CommandResult Check(const std::string& layers) {
  TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"), "name: 'absurd'\n" + layers);
  return RunDtrainWithin(120, "check --model=" + dir.Path("net.prototxt"));
}

const char kInput[] =
    "layer { name: 'in' type: 'Input' top: 'x' input_param { shape { dim: 1 dim: 800 } } }\n";

std::string InnerProduct(const std::string& num_output) {
  return std::string(kInput) +
         "layer { name: 'fc' type: 'InnerProduct' bottom: 'x' top: 'y'\n"
         "  inner_product_param { num_output: " +
         num_output + " } }\n";
}

TEST(AbsurdSizes, NumOutputBeyondAnIntIsRefusedNamingTheField) {
  EXPECT_REFUSED_WITH(Check(InnerProduct("4294967295")),
                      "layer 'fc' (InnerProduct): inner_product_param.num_output is 4294967295, "
                      "more than a dimension may be (2147483647)");
  EXPECT_REFUSED_WITH(
      Check("layer { name: 'in' type: 'Input' top: 'x' input_param { shape { dim: 1 dim: 3 dim: 8 "
            "dim: 8 } } }\n"
            "layer { name: 'c' type: 'Convolution' bottom: 'x' top: 'y' convolution_param { "
            "num_output: 4294967295 kernel_size: 1 } }\n"),
      "layer 'c' (Convolution): convolution_param.num_output is 4294967295, more than a dimension");
  EXPECT_REFUSED_WITH(
      Check("layer { name: 'm' type: 'MemoryData' top: 'x' top: 'l' memory_data_param { "
            "batch_size: 4294967295 channels: 3 height: 32 width: 32 } }\n"),
      "layer 'm' (MemoryData): memory_data_param.batch_size is 4294967295, more than a dimension");
}

TEST(AbsurdSizes, AWeightLargerThanTheMachineIsRefusedWithTheFigure) {
  const auto r = Check(InnerProduct("2147483647"));
  EXPECT_REFUSED_WITH(r,
                      "layer 'fc' (InnerProduct): a tensor of shape 2147483647 x 800 "
                      "(1717986917600 values, 6.2 TiB) is larger than this machine's memory (" +
                          ByteSize(static_cast<double>(MachineMemoryBytes())) + ")");
}

TEST(AbsurdSizes, DataShapesBeyondTheMachineOrAnIntAreRefused) {
  EXPECT_REFUSED_WITH(
      Check("layer { name: 'd' type: 'DummyData' top: 'x' dummy_data_param { shape { dim: "
            "10000000 dim: 1000000 } } }\n"),
      "layer 'd' (DummyData): dummy_data_param.shape[0]: a tensor of shape 10000000 x 1000000 "
      "(10000000000000 "
      "values, 36.4 TiB) is larger than this machine's memory");
  EXPECT_REFUSED_WITH(
      Check("layer { name: 'in' type: 'Input' top: 'x' input_param { shape { dim: 2000000000 "
            "dim: 2000000000 } } }\n"),
      "layer 'in' (Input): input_param.shape[0]: a tensor of shape 2000000000 x 2000000000 "
      "(4000000000000000000 values, 13.9 EiB) is larger than this machine's memory");
  // 2^32 would be 0 as an int, and 2^31 negative: both are refused as too large a dimension.
  for (const char* dim : {"4294967296", "2147483648"}) {
    EXPECT_REFUSED_WITH(
        Check("layer { name: 'in' type: 'Input' top: 'x' input_param { shape { dim: 2 dim: " +
              std::string(dim) + " } } }\n"),
        "layer 'in' (Input): input_param.shape[0]: dim " + std::string(dim) +
            " (dimension 1) is outside [0, 2147483647]");
  }
  // 2^93 values: the count itself would overflow.
  EXPECT_REFUSED_WITH(
      Check("layer { name: 'in' type: 'Input' top: 'x' input_param { shape { dim: 2147483647 "
            "dim: 2147483647 dim: 2147483647 } } }\n"),
      "layer 'in' (Input): input_param.shape[0]: a tensor of shape 2147483647 x 2147483647 x "
      "2147483647 has more values than a 64-bit count holds");
}

TEST(AbsurdSizes, AComputedDimensionThatOverflowsIsRefused) {
  EXPECT_REFUSED_WITH(
      Check(std::string(kInput) +
            "layer { name: 't' type: 'Tile' bottom: 'x' top: 'y' tile_param { axis: 1 tiles: "
            "2147483647 } }\n"),
      "layer 't' (Tile): the tiled axis (tile_param.tiles 2147483647 x 800) is 1717986917600, "
      "more than a dimension may be (2147483647)");
}

TEST(AbsurdSizes, AResizeBeyondTheMachineIsRefusedBeforeDecoding) {
  TempDir dir;
  WriteTextFile(dir.Path("list.txt"), "a.png 0\n");
  EXPECT_REFUSED_WITH(
      Check("layer { name: 'img' type: 'ImageData' top: 'x' top: 'l' image_data_param { source: '" +
            dir.Path("list.txt") + "' batch_size: 1 new_height: 100000 new_width: 100000 } }\n"),
      "layer 'img' (ImageData): image_data_param.new_height/new_width: a tensor of shape 1 x 3 x "
      "100000 x 100000 (30000000000 values, 111.8 GiB) is larger than this machine's memory");
}

// Each tensor fits, together they do not: the net is refused with its total before its first
// forward, so nothing is allocated for it (tensors take memory on first use).
TEST(AbsurdSizes, ANetLargerThanTheMachineIsRefusedWithItsTotal) {
  const int64_t quarter = MachineMemoryBytes() / 4 / 4;  // values in a quarter of the memory
  const int64_t columns = quarter / 4 + 1;
  std::string layers =
      "layer { name: 'in' type: 'Input' top: 'x0' input_param { shape { dim: 4 "
      "dim: " +
      std::to_string(columns) + " } } }\n";
  for (int i = 1; i <= 6; ++i) {
    layers += "layer { name: 'r" + std::to_string(i) + "' type: 'ReLU' bottom: 'x" +
              std::to_string(i - 1) + "' top: 'x" + std::to_string(i) + "' }\n";
  }
  const auto r = Check(layers);
  EXPECT_REFUSED_WITH(r, "net 'absurd' (TRAIN) needs ");
  EXPECT_NE(r.output.find("for its tensors (activations "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("more than this machine's memory (" +
                          ByteSize(static_cast<double>(MachineMemoryBytes())) + ")"),
            std::string::npos)
      << r.output;
}

TEST(AbsurdSizes, CheckPrintsTheMemoryANetNeeds) {
  // Activations: 1 x 1000 and 1 x 10 floats (4040 B); gradients: fc's top (40 B); parameters:
  // 10 x 1000 weights and 10 biases, data and diff (80080 B).
  const auto r = Check(
      "layer { name: 'in' type: 'Input' top: 'x' input_param { shape { dim: 1 dim: 1000 } } }\n"
      "layer { name: 'fc' type: 'InnerProduct' bottom: 'x' top: 'y' inner_product_param { "
      "num_output: 10 } }\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("memory: 82.2 KiB (activations 3.9 KiB, gradients 40 B, parameters "
                          "78.2 KiB; this machine has "),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace dtrain
