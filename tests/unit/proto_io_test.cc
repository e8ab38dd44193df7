// Tests for core/proto_io and for the schema's compatibility with Caffe's files: every Caffe
// example prototxt parses, errors carry file:line:column, binary files round-trip, damage is
// reported as DataLoss, and failed writes leave nothing behind.
#include "core/proto_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "proto/blob.pb.h"
#include "proto/net.pb.h"
#include "proto/solver.pb.h"
#include "testing/caffe_nets.h"

namespace dtrain {
namespace {

namespace fs = std::filesystem;

// A fresh empty directory per test, removed afterwards.
class ProtoIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("dtrain_proto_io_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::vector<std::string> Entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename());
    return names;
  }

  static void WriteFile(const std::string& path, const std::string& contents) {
    std::ofstream out(path, std::ios::binary);
    out << contents;
  }

  fs::path dir_;
};

// A small net with learned blobs, as a .caffemodel would hold.
NetParameter MakeNet() {
  NetParameter net;
  net.set_name("tiny");
  LayerParameter* layer = net.add_layer();
  layer->set_name("ip1");
  layer->set_type("InnerProduct");
  layer->add_bottom("data");
  layer->add_top("ip1");
  layer->mutable_inner_product_param()->set_num_output(3);
  BlobProto* weights = layer->add_blobs();
  weights->mutable_shape()->add_dim(3);
  weights->mutable_shape()->add_dim(100);
  for (int i = 0; i < 300; ++i) weights->add_data(0.01f * i - 1.f);
  BlobProto* bias = layer->add_blobs();
  bias->mutable_shape()->add_dim(3);
  for (int i = 0; i < 3; ++i) bias->add_data(0.5f * i);
  return net;
}

TEST_F(ProtoIoTest, EveryCaffeExamplePrototxtParses) {
  if (const std::string missing = testing::CaffeModelsMissing(); !missing.empty()) {
    GTEST_SKIP() << missing;
  }
  const fs::path root = testing::CaffeModelsDir();

  int nets = 0, solvers = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".prototxt") continue;
    const std::string path = entry.path().string();
    if (entry.path().filename().string().find("solver") != std::string::npos) {
      SolverParameter solver;
      Status s = ReadTextProto(path, &solver);
      EXPECT_TRUE(s.ok()) << s.message();
      ++solvers;
    } else {
      NetParameter net;
      Status s = ReadTextProto(path, &net);
      EXPECT_TRUE(s.ok()) << s.message();
      EXPECT_TRUE(net.layer_size() > 0 || net.layers_size() > 0) << path << " has no layers";
      ++nets;
    }
  }
  EXPECT_GE(nets + solvers, 50) << "nets " << nets << ", solvers " << solvers;
  EXPECT_GT(solvers, 0);

  // Spot checks that the values land in the right fields.
  NetParameter lenet;
  ASSERT_TRUE(
      ReadTextProto((root / "examples/mnist/lenet_train_test.prototxt").string(), &lenet).ok());
  ASSERT_GE(lenet.layer_size(), 3);
  EXPECT_EQ(lenet.layer(0).type(), "Data");
  EXPECT_EQ(lenet.layer(0).include(0).phase(), TRAIN);
  EXPECT_EQ(lenet.layer(0).data_param().backend(), DataParameter::LMDB);
  EXPECT_EQ(lenet.layer(2).convolution_param().num_output(), 20u);
  EXPECT_EQ(lenet.layer(2).convolution_param().kernel_size(0), 5u);
  EXPECT_EQ(lenet.layer(2).convolution_param().weight_filler().type(), "xavier");

  SolverParameter solver;
  ASSERT_TRUE(
      ReadTextProto((root / "examples/mnist/lenet_solver.prototxt").string(), &solver).ok());
  EXPECT_FLOAT_EQ(solver.base_lr(), 0.01f);
  EXPECT_EQ(solver.lr_policy(), "inv");
  EXPECT_EQ(solver.max_iter(), 10000);
  EXPECT_EQ(solver.solver_mode(), SolverParameter::GPU);
}

TEST_F(ProtoIoTest, TextErrorNamesFileLineAndColumn) {
  const std::string path = Path("bad.prototxt");
  WriteFile(path,
            "name: \"bad\"\n"
            "layer {\n"
            "  nme: \"conv1\"\n"
            "}\n");
  NetParameter net;
  Status s = ReadTextProto(path, &net);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  // An unknown field is placed where its name starts (protobuf reports the ':' after it).
  EXPECT_NE(s.message().find(path + ":3:3: unknown field \"nme\" in LayerParameter"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("nme"), std::string::npos) << s.message();

  // A value of the wrong type, in inline text.
  s = ParseTextProto("layer {\n  name: \"x\"\n  convolution_param { num_output: -4 }\n}\n",
                     "inline", &net);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("inline:3:", 0), 0u) << s.message();

  // A file cut short: the error is at the end of its last line, not on a line past its end.
  SolverParameter solver;
  s = ParseTextProto("net: 'n'\nbase_lr: 0.1\nlr_policy: \n\n", "cut", &solver);
  EXPECT_EQ(s.message(), "cut:3:11: the file ends here: Expected string, got: ") << s.message();
  s = ParseTextProto("net: 'n'\nnet_param { layer {\n", "open", &solver);
  EXPECT_EQ(s.message().rfind("open:2:20: the file ends here: ", 0), 0u) << s.message();
}

TEST_F(ProtoIoTest, MissingRequiredFieldInTextIsAnError) {
  NetParameter net;
  Status s = ParseTextProto("layer { type: \"Clip\" clip_param { min: 0 } }", "clip", &net);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("clip: "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("clip_param.max"), std::string::npos) << s.message();
}

TEST_F(ProtoIoTest, MissingFileIsNotFound) {
  const std::string path = Path("absent.prototxt");
  NetParameter net;
  Status s = ReadTextProto(path, &net);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();

  s = ReadBinaryProto(Path("absent.caffemodel"), &net);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("absent.caffemodel"), std::string::npos) << s.message();
}

TEST_F(ProtoIoTest, BinaryRoundTripLeavesOnlyTheFile) {
  const std::string path = Path("tiny.caffemodel");
  const NetParameter net = MakeNet();
  ASSERT_TRUE(WriteBinaryProtoAtomically(path, net).ok());

  NetParameter back;
  Status s = ReadBinaryProto(path, &back);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(back.SerializeAsString(), net.SerializeAsString());
  ASSERT_EQ(back.layer(0).blobs_size(), 2);
  EXPECT_FLOAT_EQ(back.layer(0).blobs(0).data(299), 0.01f * 299 - 1.f);

  // Overwriting an existing file works and leaves no temporary file.
  NetParameter other = net;
  other.set_name("tiny2");
  ASSERT_TRUE(WriteBinaryProtoAtomically(path, other).ok());
  ASSERT_TRUE(ReadBinaryProto(path, &back).ok());
  EXPECT_EQ(back.name(), "tiny2");
  EXPECT_EQ(Entries(), std::vector<std::string>{"tiny.caffemodel"});
}

TEST_F(ProtoIoTest, TextRoundTrip) {
  const std::string path = Path("net.prototxt");
  const NetParameter net = MakeNet();
  ASSERT_TRUE(WriteTextProtoAtomically(path, net).ok());
  NetParameter back;
  Status s = ReadTextProto(path, &back);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(back.SerializeAsString(), net.SerializeAsString());
  EXPECT_EQ(Entries(), std::vector<std::string>{"net.prototxt"});
}

// Bytes as Caffe writes them: packed repeated fields at Caffe's field numbers.
TEST_F(ProtoIoTest, WireFormatMatchesCaffe) {
  BlobProto blob;
  blob.mutable_shape()->add_dim(2);
  blob.mutable_shape()->add_dim(3);
  blob.add_data(1.f);
  // In field-number order: data (5, packed, length 4) 1.0f, then
  // shape (7, length 4) { dim (1, packed, length 2) 2 3 }.
  const std::string expected("\x2a\x04\x00\x00\x80\x3f\x3a\x04\x0a\x02\x02\x03", 12);
  EXPECT_EQ(blob.SerializeAsString(), expected);

  // Solver state history lives in field 3, iter in field 1.
  SolverState state;
  state.set_iter(5);
  EXPECT_EQ(state.SerializeAsString(), std::string("\x08\x05", 2));
}

TEST_F(ProtoIoTest, TruncatedBinaryIsDataLoss) {
  const std::string path = Path("cut.caffemodel");
  ASSERT_TRUE(WriteBinaryProtoAtomically(path, MakeNet()).ok());
  const auto size = fs::file_size(path);
  // Cut inside the packed weights so a length prefix points past the end.
  fs::resize_file(path, size / 2);

  NetParameter back;
  Status s = ReadBinaryProto(path, &back);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.message();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();

  // Garbage is DataLoss too.
  WriteFile(path, std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11));
  s = ReadBinaryProto(path, &back);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.message();
}

TEST_F(ProtoIoTest, WriteIntoMissingDirectoryFailsCleanly) {
  const fs::path missing = dir_ / "no_such_dir";
  const std::string path = (missing / "x.caffemodel").string();
  Status s = WriteBinaryProtoAtomically(path, MakeNet());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kIo);
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("No such file or directory"), std::string::npos) << s.message();
  EXPECT_FALSE(fs::exists(missing));
  EXPECT_TRUE(Entries().empty());

  s = WriteTextProtoAtomically(path, MakeNet());
  EXPECT_EQ(s.code(), StatusCode::kIo);
  EXPECT_TRUE(Entries().empty());
}

TEST_F(ProtoIoTest, WriteOfIncompleteMessageIsRefused) {
  NetParameter net;
  net.add_layer()->mutable_clip_param()->set_min(0.f);  // max is required
  const std::string path = Path("clip.caffemodel");
  Status s = WriteBinaryProtoAtomically(path, net);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("clip_param.max"), std::string::npos) << s.message();
  EXPECT_TRUE(Entries().empty());
}

}  // namespace
}  // namespace dtrain
