#include "launch/job_inputs.h"

#include <gtest/gtest.h>

#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

TEST(JobInputsTest, SolverNetsAndDataPerRankWithTestInputsOnlyWhenTesting) {
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("net.prototxt"), R"(
    layer { name: "train" type: "ImageData" top: "data" top: "label" include { phase: TRAIN }
            image_data_param { source: "list_%#_of_%*.txt" root_folder: "/images/" } }
    layer { name: "served" type: "Data" top: "x" include { phase: TRAIN }
            data_param { source: "tcp://master:5555" } }
    layer { name: "val" type: "Data" top: "data" top: "label" include { phase: TEST }
            transform_param { mean_file: "mean.binaryproto" } data_param { source: "val_lmdb" } })");
  const std::string net = dir.Path("net.prototxt");
  testing::WriteTextFile(dir.Path("solver.prototxt"), "net: '" + net + "'\n");
  const std::vector<std::string> job = {"train", "--solver=" + dir.Path("solver.prototxt"),
                                        "-weights", "w.caffemodel"};
  EXPECT_EQ(JobFlagValue(job, "weights"), "w.caffemodel");
  EXPECT_EQ(JobInputPaths(job, {2, 3}, 4),
            (std::vector<std::string>{"w.caffemodel", dir.Path("solver.prototxt"), net,
                                      "list_2_of_4.txt", "/images/", "list_3_of_4.txt"}));
  testing::WriteTextFile(dir.Path("solver.prototxt"), "net: '" + net + "'\ntest_iter: 10\n");
  EXPECT_EQ(
      JobInputPaths(job, {0}, 1),
      (std::vector<std::string>{"w.caffemodel", dir.Path("solver.prototxt"), net, "list_0_of_1.txt",
                                "/images/", "val_lmdb", "mean.binaryproto"}));
  EXPECT_EQ(DataServerInputPaths({"--source=/lmdb", "--batch-size=5", "--auth-file=s"}),
            (std::vector<std::string>{"/lmdb", "s"}));
}

TEST(JobInputsTest, EveryDataLayerThatReadsFilesNamesThem) {
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("net.prototxt"), R"(
    layer { name: "rows" type: "HDF5Data" top: "data" hdf5_data_param { source: "h5_%#.txt" } }
    layer { name: "windows" type: "WindowData" top: "w" top: "l"
            window_data_param { source: "windows.txt" root_folder: "/voc/" mean_file: "m1" } }
    layer { name: "legacy" type: "Data" top: "d" data_param { source: "lmdb" mean_file: "m2" } }
    layer { name: "clip" type: "VideoData" top: "v" data_param { batch_size: 1 }
            video_data_param { video_type: VIDEO video_file: "street.mp4" } }
    layer { name: "fed" type: "Input" top: "i" input_param { shape { dim: 1 } } })");
  const std::string net = dir.Path("net.prototxt");
  testing::WriteTextFile(dir.Path("solver.prototxt"), "net: '" + net + "'\n");
  EXPECT_EQ(JobInputPaths({"train", "--solver=" + dir.Path("solver.prototxt")}, {1}, 2),
            (std::vector<std::string>{dir.Path("solver.prototxt"), net, "h5_1.txt", "windows.txt",
                                      "/voc/", "m1", "lmdb", "m2", "street.mp4"}));
}

}  // namespace
}  // namespace dtrain
