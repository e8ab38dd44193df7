#include "data/convert.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "data/cifar_reader.h"
#include "data/datum.h"
#include "data/lmdb_db.h"
#include "data_test_util.h"

namespace dtrain {
namespace {

using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

void PutBigEndian(std::vector<uint8_t>* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<uint8_t>(v >> shift));
}

// Writes an MNIST pair of `count` 28x28 images (pixel j of image i = (i * 3 + j) % 256) and
// labels (i % 10).
void WriteMnist(const std::string& images, const std::string& labels, int count, int label_count) {
  std::vector<uint8_t> bytes;
  for (uint32_t v : {2051u, static_cast<uint32_t>(count), 28u, 28u}) PutBigEndian(&bytes, v);
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < 784; ++j) bytes.push_back(static_cast<uint8_t>((i * 3 + j) % 256));
  WriteFile(images, bytes);
  bytes.clear();
  for (uint32_t v : {2049u, static_cast<uint32_t>(label_count)}) PutBigEndian(&bytes, v);
  for (int i = 0; i < label_count; ++i) bytes.push_back(static_cast<uint8_t>(i % 10));
  WriteFile(labels, bytes);
}

TEST(ConvertTest, MnistEndToEnd) {
  TempDir dir;
  WriteMnist(dir.Path("images"), dir.Path("labels"), 12, 12);
  const std::string out = dir.Path("mnist_train_lmdb");
  Status s = ConvertMnist(dir.Path("images"), dir.Path("labels"), out);
  ASSERT_TRUE(s.ok()) << s.message();

  auto reader = LmdbReader::Open(out);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  ASSERT_EQ((*reader)->Count(), 12);
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ((*reader)->key(), RecordKey(i));
    Datum datum;
    ASSERT_TRUE(ParseDatum((*reader)->value(), (*reader)->key(), &datum).ok());
    EXPECT_EQ(DatumShapeString(datum), "1x28x28");
    EXPECT_EQ(datum.label(), i % 10);
    EXPECT_EQ(DatumValue(datum, 0), (i * 3) % 256);
    EXPECT_EQ(DatumValue(datum, 783), (i * 3 + 783) % 256);
    ASSERT_TRUE((*reader)->Next().ok());
  }

  // A second run refuses to overwrite the output.
  s = ConvertMnist(dir.Path("images"), dir.Path("labels"), out);
  EXPECT_EQ(s.message(), "output '" + out + "' already exists; refusing to overwrite it");
}

TEST(ConvertTest, MnistCountMismatchLeavesNoOutput) {
  TempDir dir;
  WriteMnist(dir.Path("images"), dir.Path("labels"), 3, 2);
  const std::string out = dir.Path("out_lmdb");
  Status s = ConvertMnist(dir.Path("images"), dir.Path("labels"), out);
  EXPECT_EQ(s.message(), "images file '" + dir.Path("images") + "' has 3 images but labels file '" +
                             dir.Path("labels") + "' has 2 labels");
  EXPECT_FALSE(fs::exists(out));
}

TEST(ConvertTest, Cifar10WritesTrainAndTest) {
  TempDir dir;
  // Two records per training batch, three in the test batch; label = file * 2 + record (< 10),
  // first pixel = the same number.
  auto batch_file = [](int count, int base) {
    std::vector<uint8_t> bytes;
    for (int i = 0; i < count; ++i) {
      bytes.push_back(static_cast<uint8_t>((base + i) % 10));
      for (int j = 0; j < kCifarImageBytes; ++j) bytes.push_back(static_cast<uint8_t>(base + i));
    }
    return bytes;
  };
  for (int f = 1; f <= 5; ++f) {
    WriteFile(dir.Path("data_batch_" + std::to_string(f) + ".bin"), batch_file(2, (f - 1) * 2));
  }
  WriteFile(dir.Path("test_batch.bin"), batch_file(3, 100));
  fs::create_directories(dir.Path("out"));
  Status s = ConvertCifar10(dir.Path(""), dir.Path("out"));
  ASSERT_TRUE(s.ok()) << s.message();

  auto train = LmdbReader::Open(dir.Path("out/cifar10_train_lmdb"));
  ASSERT_TRUE(train.ok()) << train.status().message();
  ASSERT_EQ((*train)->Count(), 10);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ((*train)->key(), RecordKey(i, 5));
    Datum datum;
    ASSERT_TRUE(ParseDatum((*train)->value(), (*train)->key(), &datum).ok());
    EXPECT_EQ(DatumShapeString(datum), "3x32x32");
    EXPECT_EQ(datum.label(), i);
    EXPECT_EQ(DatumValue(datum, 3071), i);
    ASSERT_TRUE((*train)->Next().ok());
  }
  auto test = LmdbReader::Open(dir.Path("out/cifar10_test_lmdb"));
  ASSERT_TRUE(test.ok());
  ASSERT_EQ((*test)->Count(), 3);
  Datum datum;
  ASSERT_TRUE(ParseDatum((*test)->value(), (*test)->key(), &datum).ok());
  EXPECT_EQ(datum.label(), 0);
  EXPECT_EQ(DatumValue(datum, 0), 100);
}

TEST(ConvertTest, Cifar10TruncatedBatchLeavesNoOutput) {
  TempDir dir;
  for (int f = 1; f <= 5; ++f) {
    std::vector<uint8_t> bytes(kCifarRecordBytes * (f == 3 ? 1.5 : 1), 0);
    WriteFile(dir.Path("data_batch_" + std::to_string(f) + ".bin"), bytes);
  }
  WriteFile(dir.Path("test_batch.bin"), std::vector<uint8_t>(kCifarRecordBytes, 0));
  Status s = ConvertCifar10(dir.Path(""), dir.Path("out"));
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("data_batch_3.bin' is truncated"), std::string::npos) << s.message();
  EXPECT_FALSE(fs::exists(dir.Path("out/cifar10_train_lmdb")));
  EXPECT_FALSE(fs::exists(dir.Path("out/cifar10_test_lmdb")));
}

TEST(ConvertTest, ComputeMeanOfTinyLmdb) {
  TempDir dir;
  // TinyDatum i has value (16 i + j) at index j: the mean over i = 0..3 is 24 + j.
  testing::WriteTinyLmdb(dir.Path("db"), 4, 2, 2, 3);
  const std::string out = dir.Path("mean.binaryproto");
  Status s = ComputeMean(dir.Path("db"), out);
  ASSERT_TRUE(s.ok()) << s.message();
  BlobProto mean;
  ASSERT_TRUE(ReadBinaryProto(out, &mean).ok());
  EXPECT_EQ(mean.num(), 1);
  EXPECT_EQ(mean.channels(), 2);
  EXPECT_EQ(mean.height(), 2);
  EXPECT_EQ(mean.width(), 3);
  ASSERT_EQ(mean.data_size(), 12);
  for (int j = 0; j < 12; ++j) EXPECT_FLOAT_EQ(mean.data(j), 24.f + j) << j;
}

TEST(ConvertTest, ComputeMeanErrors) {
  TempDir dir;
  Status s = ComputeMean(dir.Path("missing"), dir.Path("mean.binaryproto"));
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "LMDB '" + dir.Path("missing") + "' does not exist");

  // Records of different shapes.
  {
    auto writer = LmdbWriter::Create(dir.Path("mixed"));
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(
        (*writer)->Put(RecordKey(0), testing::TinyDatum(0, 1, 2, 2).SerializeAsString()).ok());
    ASSERT_TRUE(
        (*writer)->Put(RecordKey(1), testing::TinyDatum(1, 1, 3, 2).SerializeAsString()).ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  s = ComputeMean(dir.Path("mixed"), dir.Path("mean.binaryproto"));
  EXPECT_EQ(s.message(), "LMDB '" + dir.Path("mixed") +
                             "': record '00000001' is 1x3x2 but the first record is 1x2x2; a mean "
                             "needs equal shapes");
  EXPECT_FALSE(fs::exists(dir.Path("mean.binaryproto")));
}

}  // namespace
}  // namespace dtrain
