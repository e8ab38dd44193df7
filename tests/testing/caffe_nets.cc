#include "testing/caffe_nets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/proto_io.h"
#include "core/tensor.h"
#include "data/hdf5_file.h"
#include "data/image_test_util.h"
#include "layers/registry.h"
#include "proto/blob.pb.h"
#include "proto/layer_params.pb.h"
#include "testing/trainable_data.h"

namespace dtrain::testing {
namespace {

namespace fs = std::filesystem;

// Image shape a Caffe example's data source implies (C, H, W).
std::vector<int> SourceShape(const std::string& source) {
  // Caffe's siamese example stores MNIST pairs as 2-channel images, sliced apart in the net.
  if (source.find("siamese") != std::string::npos) return {2, 28, 28};
  if (source.find("mnist") != std::string::npos) return {1, 28, 28};
  if (source.find("cifar") != std::string::npos) return {3, 32, 32};
  return {3, 256, 256};  // ImageNet-style LMDBs are stored at 256x256
}

}  // namespace

std::string CaffeModelsDir() { return std::string(DTRAIN_SOURCE_DIR) + "/../shared/data/caffe"; }

std::string CaffeModelsMissing() {
  if (fs::is_directory(CaffeModelsDir())) return "";
  return "needs BVLC Caffe's model files at " + CaffeModelsDir() +
         " (../shared/ is beside the development checkout only)";
}

std::vector<std::string> NetFilesUnder(const std::string& root) {
  std::vector<std::string> files;
  if (!fs::exists(root)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() == ".prototxt" && path.find("solver") == std::string::npos) {
      files.push_back(path);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> ShippedNetFiles() {
  return NetFilesUnder(std::string(DTRAIN_SOURCE_DIR) + "/models");
}

bool AllTypesSupported(const NetParameter& net, std::string* missing) {
  for (const LayerParameter& layer : net.layer()) {
    if (!IsSupportedLayerType(layer.type())) {
      *missing = layer.type();
      return false;
    }
  }
  return true;
}

std::vector<NetState> BuildStates(const NetParameter& net) {
  std::set<std::string> stages;
  for (const LayerParameter& layer : net.layer()) {
    for (const NetStateRule& rule : layer.include()) {
      if (!rule.has_phase() || rule.phase() != TEST) continue;
      stages.insert(rule.stage().begin(), rule.stage().end());
    }
  }
  std::vector<NetState> states(1);
  states[0].set_phase(TRAIN);
  if (stages.empty()) stages.insert("");
  for (const std::string& stage : stages) {
    NetState test;
    test.set_phase(TEST);
    if (!stage.empty()) test.add_stage(stage);
    states.push_back(test);
  }
  return states;
}

void SetBatchSize(NetParameter* net, int batch) {
  for (LayerParameter& layer : *net->mutable_layer()) {
    if (layer.has_data_param()) layer.mutable_data_param()->set_batch_size(batch);
    if (layer.has_image_data_param()) layer.mutable_image_data_param()->set_batch_size(batch);
    if (layer.has_input_param()) {
      for (BlobShape& shape : *layer.mutable_input_param()->mutable_shape()) {
        if (shape.dim_size() > 0) shape.set_dim(0, batch);
      }
    }
    if (layer.has_dummy_data_param()) {
      DummyDataParameter* p = layer.mutable_dummy_data_param();
      for (BlobShape& shape : *p->mutable_shape()) {
        if (shape.dim_size() > 0) shape.set_dim(0, batch);
      }
      for (int i = 0; i < p->num_size(); ++i) p->set_num(i, batch);
    }
  }
  for (BlobShape& shape : *net->mutable_input_shape()) {
    if (shape.dim_size() > 0) shape.set_dim(0, batch);
  }
  for (int i = 0; i < net->input_dim_size(); i += 4) net->set_input_dim(i, batch);
}

std::string CaffeNetBuilder::MeanFile(int channels, int height, int width) {
  const std::string mean =
      dir_.Path("mean_" + std::to_string(channels) + "x" + std::to_string(height) + "x" +
                std::to_string(width) + ".binaryproto");
  if (!fs::exists(mean)) {
    Tensor m({1, channels, height, width});
    m.SetData(100.f);
    BlobProto proto;
    m.ToProto(&proto, false);
    EXPECT_TRUE(WriteBinaryProtoAtomically(mean, proto).ok());
  }
  return mean;
}

std::string CaffeNetBuilder::ImageList() {
  const std::string list = dir_.Path("images.txt");
  if (!fs::exists(list)) {
    std::string text;
    for (int i = 0; i < 4; ++i) {
      const std::string name = "image_" + std::to_string(i) + ".png";
      WriteBytes(dir_.Path(name), BgrPng(GradientBgr(256, 256, i), 256, 256));
      text += name + " " + std::to_string(i % 2) + "\n";
    }
    WriteBytes(list, text);
  }
  return list;
}

std::string CaffeNetBuilder::WindowFile() {
  const std::string file = dir_.Path("windows.txt");
  if (!fs::exists(file)) {
    ImageList();  // writes the images
    std::string text;
    for (int i = 0; i < 4; ++i) {
      text += "# " + std::to_string(i) + "\nimage_" + std::to_string(i) + ".png\n3\n256\n256\n2\n" +
              std::to_string(i + 1) + " 0.9 10 20 120 200\n0 0.1 100 50 250 160\n";
    }
    WriteBytes(file, text);
  }
  return file;
}

std::string CaffeNetBuilder::Hdf5List(const LayerParameter& layer) {
  std::string tops;
  for (const std::string& top : layer.top()) tops += "_" + top;
  const std::string file = dir_.Path("hdf5" + tops + ".h5"),
                    list = dir_.Path("hdf5" + tops + ".txt");
  if (fs::exists(list)) return list;
  std::vector<std::vector<int>> row_shapes;
  for (const std::string& top : layer.top()) {
    row_shapes.push_back(top == "label" ? std::vector<int>{} : std::vector<int>{4});
  }
  auto writer = Hdf5RowWriter::Create(
      file, std::vector<std::string>(layer.top().begin(), layer.top().end()), row_shapes);
  EXPECT_TRUE(writer.ok()) << writer.status().message();
  if (!writer.ok()) return list;
  for (int t = 0; t < layer.top_size(); ++t) {
    const std::vector<float> rows =
        row_shapes[t].empty() ? std::vector<float>{0, 1, 0, 1} : std::vector<float>(16, 0.5f);
    EXPECT_TRUE(writer->Append(t, rows.data(), 4).ok());
  }
  WriteBytes(list, file + "\n");
  return list;
}

void CaffeNetBuilder::Redirect(NetParameter* net) {
  for (LayerParameter& layer : *net->mutable_layer()) {
    if (layer.type() == "HDF5Data") {
      layer.mutable_hdf5_data_param()->set_source(Hdf5List(layer));
      continue;
    }
    if (layer.type() == "WindowData") {
      WindowDataParameter* windows = layer.mutable_window_data_param();
      windows->set_source(WindowFile());
      windows->set_root_folder(dir_.Path("") + "/");
      if (layer.transform_param().has_mean_file()) {
        layer.mutable_transform_param()->set_mean_file(MeanFile(3, 256, 256));
      }
      continue;
    }
    if (layer.type() == "ImageData") {
      ImageDataParameter* images = layer.mutable_image_data_param();
      images->set_source(ImageList());
      images->set_root_folder(dir_.Path("") + "/");
      if (layer.transform_param().has_mean_file()) {
        const int height = images->new_height() > 0 ? images->new_height() : 256;
        const int width = images->new_width() > 0 ? images->new_width() : 256;
        layer.mutable_transform_param()->set_mean_file(
            MeanFile(images->is_color() ? 3 : 1, height, width));
      }
      continue;
    }
    if (layer.type() != "Data") continue;
    const std::vector<int> shape = SourceShape(layer.data_param().source());
    const std::string key = std::to_string(shape[0]) + "x" + std::to_string(shape[1]);
    if (!lmdbs_.count(key)) {
      lmdbs_[key] = dir_.Path("lmdb_" + key);
      WriteTrainableLmdb(lmdbs_[key], 4, shape[0], shape[1], 2);
    }
    layer.mutable_data_param()->set_source(lmdbs_[key]);
    if (layer.transform_param().has_mean_file()) {
      layer.mutable_transform_param()->set_mean_file(MeanFile(shape[0], shape[1], shape[2]));
    }
  }
}

}  // namespace dtrain::testing
