#include "data/idx_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "data_test_util.h"

namespace dtrain {
namespace {

using testing::TempDir;
using testing::WriteFile;

void PutBigEndian(std::vector<uint8_t>* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<uint8_t>(v >> shift));
}

// An IDX images file of `count` rows x cols images, pixel j of image i = i + j.
std::vector<uint8_t> ImagesFile(uint32_t count, uint32_t rows, uint32_t cols,
                                uint32_t magic = kIdxImagesMagic) {
  std::vector<uint8_t> bytes;
  PutBigEndian(&bytes, magic);
  PutBigEndian(&bytes, count);
  PutBigEndian(&bytes, rows);
  PutBigEndian(&bytes, cols);
  for (uint32_t i = 0; i < count; ++i)
    for (uint32_t j = 0; j < rows * cols; ++j) bytes.push_back(static_cast<uint8_t>(i + j));
  return bytes;
}

std::vector<uint8_t> LabelsFile(const std::vector<uint8_t>& labels) {
  std::vector<uint8_t> bytes;
  PutBigEndian(&bytes, kIdxLabelsMagic);
  PutBigEndian(&bytes, static_cast<uint32_t>(labels.size()));
  bytes.insert(bytes.end(), labels.begin(), labels.end());
  return bytes;
}

void WriteGzip(const std::string& path, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

void ExpectImages(const StatusOr<IdxImages>& images) {
  ASSERT_TRUE(images.ok()) << images.status().message();
  EXPECT_EQ(images->count, 3);
  EXPECT_EQ(images->rows, 2);
  EXPECT_EQ(images->cols, 4);
  ASSERT_EQ(images->pixels.size(), 24u);
  EXPECT_EQ(images->pixels[0], 0);
  EXPECT_EQ(images->pixels[7], 7);
  EXPECT_EQ(images->pixels[8], 1);   // image 1, pixel 0
  EXPECT_EQ(images->pixels[23], 9);  // image 2, pixel 7
}

TEST(IdxReaderTest, ReadsPlainImagesAndLabels) {
  TempDir dir;
  WriteFile(dir.Path("images"), ImagesFile(3, 2, 4));
  WriteFile(dir.Path("labels"), LabelsFile({7, 0, 9}));
  ExpectImages(ReadIdxImages(dir.Path("images")));
  auto labels = ReadIdxLabels(dir.Path("labels"));
  ASSERT_TRUE(labels.ok()) << labels.status().message();
  EXPECT_EQ(*labels, (std::vector<uint8_t>{7, 0, 9}));
}

TEST(IdxReaderTest, ReadsGzipImagesAndLabels) {
  TempDir dir;
  WriteGzip(dir.Path("images.gz"), ImagesFile(3, 2, 4));
  WriteGzip(dir.Path("labels.gz"), LabelsFile({1, 2, 3}));
  ExpectImages(ReadIdxImages(dir.Path("images.gz")));
  auto labels = ReadIdxLabels(dir.Path("labels.gz"));
  ASSERT_TRUE(labels.ok()) << labels.status().message();
  EXPECT_EQ(*labels, (std::vector<uint8_t>{1, 2, 3}));
}

TEST(IdxReaderTest, TruncatedImagesNameTheFileAndSizes) {
  TempDir dir;
  std::vector<uint8_t> bytes = ImagesFile(3, 2, 4);
  bytes.resize(bytes.size() - 5);
  const std::string path = dir.Path("images");
  WriteFile(path, bytes);
  auto images = ReadIdxImages(path);
  ASSERT_FALSE(images.ok());
  EXPECT_EQ(images.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(images.status().message(),
            "file '" + path + "' is truncated: expected 24 bytes of pixels (3 images of 2x4) " +
                "after the header, got 19");

  WriteGzip(dir.Path("images.gz"), bytes);
  EXPECT_EQ(ReadIdxImages(dir.Path("images.gz")).status().message(),
            "file '" + dir.Path("images.gz") +
                "' is truncated: expected 24 bytes of pixels (3 images of 2x4) after the header, "
                "got 19");
}

TEST(IdxReaderTest, TruncatedHeaderAndLabels) {
  TempDir dir;
  std::vector<uint8_t> header = ImagesFile(3, 2, 4);
  header.resize(10);
  WriteFile(dir.Path("short"), header);
  EXPECT_EQ(ReadIdxImages(dir.Path("short")).status().message(),
            "file '" + dir.Path("short") +
                "' is truncated: expected a 16-byte IDX images header, got 10 bytes");

  std::vector<uint8_t> labels = LabelsFile({1, 2, 3, 4});
  labels.pop_back();
  WriteFile(dir.Path("labels"), labels);
  EXPECT_EQ(ReadIdxLabels(dir.Path("labels")).status().message(),
            "file '" + dir.Path("labels") +
                "' is truncated: expected 4 bytes of labels (4 labels) after the header, got 3");
}

TEST(IdxReaderTest, BadMagicNamesBothNumbers) {
  TempDir dir;
  // A labels file given as images, and the other way round.
  WriteFile(dir.Path("labels"), LabelsFile({1}));
  EXPECT_EQ(ReadIdxImages(dir.Path("labels")).status().message(),
            "file '" + dir.Path("labels") + "': bad magic number 2049, expected 2051 (IDX images)");
  WriteFile(dir.Path("images"), ImagesFile(1, 1, 1));
  auto labels = ReadIdxLabels(dir.Path("images"));
  EXPECT_EQ(labels.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(labels.status().message(),
            "file '" + dir.Path("images") + "': bad magic number 2051, expected 2049 (IDX labels)");
}

TEST(IdxReaderTest, MissingFileIsNotFound) {
  TempDir dir;
  auto images = ReadIdxImages(dir.Path("nope.gz"));
  EXPECT_EQ(images.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(images.status().message(), "file '" + dir.Path("nope.gz") + "' does not exist");
}

// Debian's dataset-fashion-mnist, when installed.
TEST(IdxReaderTest, ReadsFashionMnistTestSet) {
  const std::string base = "/usr/share/datasets/fashion-mnist/";
  if (!std::filesystem::exists(base + "t10k-labels-idx1-ubyte.gz")) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  }
  auto images = ReadIdxImages(base + "t10k-images-idx3-ubyte.gz");
  ASSERT_TRUE(images.ok()) << images.status().message();
  EXPECT_EQ(images->count, 10000);
  EXPECT_EQ(images->rows, 28);
  EXPECT_EQ(images->cols, 28);
  auto labels = ReadIdxLabels(base + "t10k-labels-idx1-ubyte.gz");
  ASSERT_TRUE(labels.ok()) << labels.status().message();
  ASSERT_EQ(labels->size(), 10000u);
  for (uint8_t label : *labels) ASSERT_LT(label, 10);
}

}  // namespace
}  // namespace dtrain
