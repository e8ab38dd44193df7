// Nets in today's architectures' styles, written as their authors write them for Caffe, train
// through `dtrain train`: a residual block (BatchNorm + Scale + Eltwise), a depthwise-separable
// block with a channel shuffle, a densely connected block (Concat), an LSTM captioner fed by
// HDF5Data (files written with h5py), and an R-CNN style classifier of image windows
// (WindowData). Each trains a few dozen iterations and its loss falls.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "../data/image_test_util.h"
#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::RunDtrain;
using testing::TempDir;
using testing::WriteTextFile;

// Eight 3x8x8 images from a Gaussian filler and labels in 0..3 (uniform, truncated), drawn once
// (refill: false): the nets must learn to fit this one batch, so the loss must fall.
const char kImages[] =
    "layer { name: 'data' type: 'DummyData' top: 'data' top: 'label'\n"
    "  dummy_data_param { shape { dim: 8 dim: 3 dim: 8 dim: 8 } shape { dim: 8 }\n"
    "    data_filler { type: 'gaussian' std: 1 } data_filler { type: 'uniform' min: 0 max: 3.99 }\n"
    "    refill: false } }\n";

const char kHead[] =
    "layer { name: 'pool' type: 'Pooling' bottom: 'features' top: 'pooled'\n"
    "  pooling_param { pool: AVE global_pooling: true } }\n"
    "layer { name: 'fc' type: 'InnerProduct' bottom: 'pooled' top: 'fc'\n"
    "  inner_product_param { num_output: 4 weight_filler { type: 'xavier' } } }\n"
    "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'fc' bottom: 'label' top: 'loss' }\n";

std::string Conv(const std::string& name, const std::string& bottom, int outputs, int kernel,
                 const std::string& type = "Convolution", const std::string& extra = "") {
  return "layer { name: '" + name + "' type: '" + type + "' bottom: '" + bottom + "' top: '" +
         name + "'\n  convolution_param { num_output: " + std::to_string(outputs) +
         " kernel_size: " + std::to_string(kernel) + " pad: " + std::to_string(kernel / 2) +
         " bias_term: false " + extra + " weight_filler { type: 'msra' } } }\n";
}

std::string BatchNormScaleRelu(const std::string& blob) {
  return "layer { name: '" + blob + "_bn' type: 'BatchNorm' bottom: '" + blob + "' top: '" + blob +
         "' }\n"
         "layer { name: '" +
         blob + "_scale' type: 'Scale' bottom: '" + blob + "' top: '" + blob +
         "' scale_param { bias_term: true } }\n"
         "layer { name: '" +
         blob + "_relu' type: 'ReLU' bottom: '" + blob + "' top: '" + blob + "' }\n";
}

// The `, loss = X` of each displayed iteration.
std::vector<double> Losses(const std::string& log) {
  std::vector<double> losses;
  const std::regex line(R"(\] Iteration [0-9]+.*, loss = ([-0-9.e+naif]+))");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator();
       ++it) {
    losses.push_back(std::stod((*it)[1].str()));
  }
  return losses;
}

// Trains `net` for `iterations` with SGD and checks that the loss fell by `factor`.
void ExpectTrains(const std::string& net, int iterations, double factor, double lr = 0.05) {
  TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"), net);
  WriteTextFile(
      dir.Path("solver.prototxt"),
      "net: '" + dir.Path("net.prototxt") + "' base_lr: " + std::to_string(lr) +
          " momentum: 0.9 lr_policy: 'fixed' display: 5 max_iter: " + std::to_string(iterations) +
          " snapshot_prefix: '" + dir.Path("snap") + "' random_seed: 3\n");
  auto r = RunDtrain("train --solver=" + dir.Path("solver.prototxt"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<double> losses = Losses(r.output);
  ASSERT_GE(losses.size(), 2u) << r.output;
  EXPECT_LT(losses.back(), losses.front() * factor) << r.output;
}

TEST(ModernNets, ResidualBlockWithBatchNormAndScaleTrains) {
  ExpectTrains(std::string("name: 'residual'\n") + kImages + Conv("stem", "data", 8, 3) +
                   BatchNormScaleRelu("stem") + Conv("branch_a", "stem", 8, 3) +
                   BatchNormScaleRelu("branch_a") + Conv("branch_b", "branch_a", 8, 3) +
                   "layer { name: 'branch_b_bn' type: 'BatchNorm' bottom: 'branch_b' top: "
                   "'branch_b' }\n"
                   "layer { name: 'branch_b_scale' type: 'Scale' bottom: 'branch_b' top: "
                   "'branch_b' scale_param { bias_term: true } }\n"
                   "layer { name: 'sum' type: 'Eltwise' bottom: 'stem' bottom: 'branch_b' top: "
                   "'features' eltwise_param { operation: SUM } }\n" +
                   kHead,
               40, 0.5);
}

TEST(ModernNets, DepthwiseSeparableBlockWithChannelShuffleTrains) {
  ExpectTrains(std::string("name: 'mobile'\n") + kImages + Conv("stem", "data", 8, 3) +
                   BatchNormScaleRelu("stem") + Conv("dw", "stem", 8, 3, "ConvolutionDepthwise") +
                   BatchNormScaleRelu("dw") +
                   "layer { name: 'shuffle' type: 'ShuffleChannel' bottom: 'dw' top: 'shuffled'\n"
                   "  shuffle_channel_param { group: 2 } }\n" +
                   Conv("pw", "shuffled", 16, 1, "Convolution", "group: 2") +
                   BatchNormScaleRelu("pw") +
                   "layer { name: 'out' type: 'Power' bottom: 'pw' top: 'features' }\n" + kHead,
               100, 0.5);  // slower to fit than the others: 1.38 to 0.93 in 40 iterations
}

TEST(ModernNets, DenselyConnectedBlockTrains) {
  std::string net = std::string("name: 'dense'\n") + kImages + Conv("stem", "data", 8, 3);
  std::string concat = "stem";
  for (int i = 0; i < 3; ++i) {
    const std::string name = "grow" + std::to_string(i);
    net += Conv(name, concat, 4, 3) + BatchNormScaleRelu(name);
    const std::string joined = "dense" + std::to_string(i);
    net += "layer { name: '" + joined + "' type: 'Concat' bottom: '" + concat + "' bottom: '" +
           name + "' top: '" + joined + "' }\n";
    concat = joined;
  }
  net += "layer { name: 'out' type: 'Power' bottom: '" + concat + "' top: 'features' }\n";
  ExpectTrains(net + kHead, 40, 0.5);
}

// A captioner's shape: word ids in, the next word out, over T = 6 steps of 4 streams. The
// HDF5 files hold rows of 4 streams (one row per time step), the layout Caffe's LRCN recipe
// writes; cont is 0 at each sentence's first step. The target is the input word itself, which an
// LSTM over embeddings learns quickly.
TEST(ModernNets, LstmCaptionerOnHdf5DataTrains) {
  TempDir dir;
  const std::string script = dir.Path("make_data.py");
  WriteTextFile(script,
                "import h5py, numpy as np\n"
                "rng = np.random.RandomState(5)\n"
                "for part in range(2):\n"
                "  words = rng.randint(0, 6, size=(12, 4)).astype(np.float32)\n"
                "  cont = np.ones((12, 4), np.float32)\n"
                "  cont[0::6, :] = 0\n"
                "  with h5py.File('" +
                    dir.Path("part") +
                    "%d.h5' % part, 'w') as f:\n"
                    "    f['words'] = words\n"
                    "    f['cont'] = cont\n"
                    "    f['target'] = words\n");
  auto made = testing::RunShell("/usr/bin/python3 " + script + " 2>&1");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  WriteTextFile(dir.Path("list.txt"), dir.Path("part0.h5") + "\n" + dir.Path("part1.h5") + "\n");
  ExpectTrains(
      "name: 'captioner'\n"
      "layer { name: 'data' type: 'HDF5Data' top: 'words' top: 'cont' top: 'target'\n"
      "  hdf5_data_param { source: '" +
          dir.Path("list.txt") +
          "' batch_size: 6 } }\n"
          "layer { name: 'embed' type: 'Embed' bottom: 'words' top: 'embedded'\n"
          "  embed_param { num_output: 8 input_dim: 6 weight_filler { type: 'uniform' min: -0.5 "
          "max: 0.5 } } }\n"
          "layer { name: 'lstm' type: 'LSTM' bottom: 'embedded' bottom: 'cont' top: 'hidden'\n"
          "  recurrent_param { num_output: 16 weight_filler { type: 'uniform' min: -0.2 max: 0.2 } "
          "bias_filler { type: 'constant' } } }\n"
          "layer { name: 'predict' type: 'InnerProduct' bottom: 'hidden' top: 'predict'\n"
          "  inner_product_param { num_output: 6 axis: 2 weight_filler { type: 'xavier' } } }\n"
          "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'predict' bottom: 'target' top: "
          "'loss' softmax_param { axis: 2 } }\n",
      80, 0.5, 0.1);
}

// R-CNN's fine-tuning input: three images whose one foreground window is of class 1, 2 or 3 (each
// image its own grey level) and a fourth with a background window; batches of 8 windows, 6 of
// them foreground, grown by context_pad and mirrored.
TEST(ModernNets, WindowClassifierOnWindowDataTrains) {
  TempDir dir;
  std::string windows;
  for (int i = 0; i < 4; ++i) {
    const std::vector<uint8_t> pixels(16 * 16 * 3, static_cast<uint8_t>(30 + 60 * i));
    const std::string name = "image" + std::to_string(i) + ".png";
    testing::WriteBytes(dir.Path(name), testing::BgrPng(pixels, 16, 16));
    windows += "# " + std::to_string(i) + "\n" + name + "\n3\n16\n16\n1\n" +
               (i < 3 ? std::to_string(i + 1) + " 0.8" : std::string("0 0.1")) + " 3 3 12 12\n";
  }
  WriteTextFile(dir.Path("windows.txt"), windows);
  ExpectTrains(
      "name: 'rcnn'\n"
      "layer { name: 'data' type: 'WindowData' top: 'data' top: 'label'\n"
      "  window_data_param { source: '" +
          dir.Path("windows.txt") + "' root_folder: '" + dir.Path("") +
          "/' batch_size: 8 fg_fraction: 0.75 context_pad: 1 scale: 0.00390625 }\n"
          "  transform_param { crop_size: 8 mirror: true mean_value: 128 } }\n" +
          Conv("features", "data", 8, 3) + kHead,
      40, 0.5, 0.1);
}

}  // namespace
}  // namespace dtrain
