// Helpers for tests that build whole model files: BVLC Caffe's nets (CaffeModelsDir()) and
// dtrain's shipped ones (models/), with data sources and mean files pointed at small generated
// stand-ins so that every net builds without its dataset.
//
// CaffeNetBuilder owns nothing but the paths it generated inside the caller's TempDir (which must
// outlive it). Failures are gtest failures. Not thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "proto/net.pb.h"
#include "testing/files.h"

namespace dtrain::testing {

// Where BVLC Caffe's files are: ../shared/data/caffe, beside the development checkout only.
std::string CaffeModelsDir();

// Empty when CaffeModelsDir() exists; else why a test that needs it skips (for GTEST_SKIP).
std::string CaffeModelsMissing();

// Every net prototxt (no solvers) under `root`, sorted; none when `root` does not exist.
std::vector<std::string> NetFilesUnder(const std::string& root);

// dtrain's shipped nets (models/).
std::vector<std::string> ShippedNetFiles();

// Whether the registry knows every layer type of `net`; if not, `missing` names one.
bool AllTypesSupported(const NetParameter& net, std::string* missing);

// The states to build `net` in: TRAIN, then TEST once per stage that its TEST-phase include rules
// name (Caffe's autoencoder picks its test data by the solver's test_state stages), or once
// without a stage when they name none.
std::vector<NetState> BuildStates(const NetParameter& net);

// Sets the batch of every data-producing layer (Data, ImageData, Input, DummyData, legacy inputs)
// to `batch`.
void SetBatchSize(NetParameter* net, int batch);

class CaffeNetBuilder {
 public:
  explicit CaffeNetBuilder(const TempDir& dir) : dir_(dir) {}

  // Rewrites Data sources and mean files to generated stand-ins of the right image shape
  // (MNIST 1x28x28, its siamese pairs 2x28x28, CIFAR 3x32x32, else ImageNet-style 3x256x256);
  // ImageData layers read a list of four 256x256 PNGs, with a mean file of their (resized) shape.
  void Redirect(NetParameter* net);

 private:
  // A constant mean file of 1 x C x H x W, written once.
  std::string MeanFile(int channels, int height, int width);
  // The list file of the generated PNGs (in the TempDir's top folder), written once.
  std::string ImageList();
  // A window file over ImageList()'s images: one foreground and one background window each.
  std::string WindowFile();
  // An HDF5 file list for a layer with these tops: one file of 4 rows, "label" rows scalars in
  // {0, 1}, other tops rows of 4 values.
  std::string Hdf5List(const LayerParameter& layer);

  const TempDir& dir_;
  std::map<std::string, std::string> lmdbs_;
};

}  // namespace dtrain::testing
