#include "data/cifar_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "data_test_util.h"

namespace dtrain {
namespace {

using testing::TempDir;

// `count` records; record i has label i % 10 and pixel j = (i + j) % 256.
std::vector<uint8_t> CifarFile(int count) {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < count; ++i) {
    bytes.push_back(static_cast<uint8_t>(i % 10));
    for (int j = 0; j < kCifarImageBytes; ++j) bytes.push_back(static_cast<uint8_t>((i + j) % 256));
  }
  return bytes;
}

TEST(CifarReaderTest, ReadsRecords) {
  TempDir dir;
  testing::WriteFile(dir.Path("data_batch_1.bin"), CifarFile(3));
  auto batch = ReadCifarBatch(dir.Path("data_batch_1.bin"));
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  EXPECT_EQ(batch->count, 3);
  EXPECT_EQ(batch->labels, (std::vector<uint8_t>{0, 1, 2}));
  ASSERT_EQ(batch->pixels.size(), 3u * 3072);
  EXPECT_EQ(batch->pixels[0], 0);
  EXPECT_EQ(batch->pixels[3071], 3071 % 256);
  EXPECT_EQ(batch->pixels[3072 * 2 + 5], 7);
}

TEST(CifarReaderTest, TruncatedFileIsDataLoss) {
  TempDir dir;
  std::vector<uint8_t> bytes = CifarFile(2);
  bytes.resize(bytes.size() - 100);
  const std::string path = dir.Path("test_batch.bin");
  testing::WriteFile(path, bytes);
  auto batch = ReadCifarBatch(path);
  ASSERT_FALSE(batch.ok());
  EXPECT_EQ(batch.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(batch.status().message(),
            "file '" + path + "' is truncated: 6046 bytes is not a whole number of 3073-byte " +
                "CIFAR-10 records (1 records and 2973 bytes; expected 6146)");
}

TEST(CifarReaderTest, AnEmptyFileIsDataLoss) {
  TempDir dir;
  testing::WriteFile(dir.Path("data_batch_1.bin"), {});
  auto batch = ReadCifarBatch(dir.Path("data_batch_1.bin"));
  EXPECT_EQ(batch.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(batch.status().message(), "file '" + dir.Path("data_batch_1.bin") +
                                          "' is empty (0 bytes): a CIFAR-10 batch " +
                                          "holds 3073-byte records (a failed download or copy?)");
}

TEST(CifarReaderTest, BadLabelAndMissingFile) {
  TempDir dir;
  std::vector<uint8_t> bytes = CifarFile(2);
  bytes[kCifarRecordBytes] = 12;
  testing::WriteFile(dir.Path("b.bin"), bytes);
  EXPECT_EQ(ReadCifarBatch(dir.Path("b.bin")).status().message(),
            "file '" + dir.Path("b.bin") + "': record 1 has label 12; CIFAR-10 labels are 0..9");
  auto missing = ReadCifarBatch(dir.Path("none.bin"));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "file '" + dir.Path("none.bin") + "' does not exist");
}

}  // namespace
}  // namespace dtrain
