#include "data/lmdb_db.h"

#include <gtest/gtest.h>

#include <string>

#include "data_test_util.h"

namespace dtrain {
namespace {

using testing::TempDir;

TEST(LmdbDbTest, RecordKeyIsZeroPadded) {
  EXPECT_EQ(RecordKey(0), "00000000");
  EXPECT_EQ(RecordKey(1234), "00001234");
  EXPECT_EQ(RecordKey(42, 5), "00042");
}

TEST(LmdbDbTest, WritesAndReadsInKeyOrderWrappingRound) {
  TempDir dir;
  const std::string path = dir.Path("db");
  {
    auto writer = LmdbWriter::Create(path);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    // Written out of order: the reader returns key order.
    ASSERT_TRUE((*writer)->Put("b", "two").ok());
    ASSERT_TRUE((*writer)->Put("a", "one").ok());
    ASSERT_TRUE((*writer)->Put("c", "three").ok());
    ASSERT_TRUE((*writer)->Close().ok());
    EXPECT_EQ((*writer)->committed(), 3);
  }
  auto reader = LmdbReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  LmdbReader& r = **reader;
  EXPECT_EQ(r.Count(), 3);
  ASSERT_TRUE(r.valid());
  EXPECT_EQ(r.key(), "a");
  EXPECT_EQ(r.value(), "one");
  bool wrapped = true;
  ASSERT_TRUE(r.Next(&wrapped).ok());
  EXPECT_FALSE(wrapped);
  EXPECT_EQ(r.key(), "b");
  ASSERT_TRUE(r.Next().ok());
  EXPECT_EQ(r.value(), "three");
  ASSERT_TRUE(r.Next(&wrapped).ok());
  EXPECT_TRUE(wrapped);
  EXPECT_EQ(r.key(), "a");
  ASSERT_TRUE(r.Next().ok());
  ASSERT_TRUE(r.SeekToFirst().ok());
  EXPECT_EQ(r.key(), "a");
}

TEST(LmdbDbTest, CommitsInBatchesAndGrowsTheMap) {
  TempDir dir;
  const std::string path = dir.Path("db");
  const int kRecords = 2500;
  const std::string value(1000, 'x');
  {
    // 2.5 MB of values into a 64 KiB map: the writer must double the map several times.
    auto writer = LmdbWriter::Create(path, 64 << 10);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    for (int i = 0; i < kRecords; ++i) {
      Status s = (*writer)->Put(RecordKey(i), value + std::to_string(i));
      ASSERT_TRUE(s.ok()) << s.message();
      if (i == LmdbWriter::kPutsPerCommit - 2) {
        EXPECT_EQ((*writer)->committed(), 0);
      }
      if (i == LmdbWriter::kPutsPerCommit - 1) {
        EXPECT_EQ((*writer)->committed(), 1000);
      }
    }
    ASSERT_TRUE((*writer)->Close().ok());
    EXPECT_EQ((*writer)->committed(), kRecords);
  }
  auto reader = LmdbReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  EXPECT_EQ((*reader)->Count(), kRecords);
  for (int i = 0; i < kRecords; ++i) {
    ASSERT_EQ((*reader)->key(), RecordKey(i));
    ASSERT_EQ((*reader)->value(), value + std::to_string(i));
    ASSERT_TRUE((*reader)->Next().ok());
  }
}

TEST(LmdbDbTest, EmptyDatabaseIsInvalid) {
  TempDir dir;
  const std::string path = dir.Path("db");
  {
    auto writer = LmdbWriter::Create(path);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  auto reader = LmdbReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  EXPECT_EQ((*reader)->Count(), 0);
  EXPECT_FALSE((*reader)->valid());
  ASSERT_TRUE((*reader)->Next().ok());
  EXPECT_FALSE((*reader)->valid());
}

TEST(LmdbDbTest, MissingPathIsNotFoundNamingIt) {
  TempDir dir;
  const std::string path = dir.Path("no_such_lmdb");
  auto reader = LmdbReader::Open(path);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(reader.status().message(), "LMDB '" + path + "' does not exist");
}

TEST(LmdbDbTest, DirectoryWithoutDataFileIsNotFound) {
  TempDir dir;
  auto reader = LmdbReader::Open(dir.Path(""));
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), StatusCode::kNotFound);
  EXPECT_NE(reader.status().message().find("has no data.mdb"), std::string::npos);
}

TEST(LmdbDbTest, WriterRefusesAnExistingPath) {
  TempDir dir;
  const std::string path = dir.Path("db");
  testing::WriteTinyLmdb(path, 2, 1, 2, 2);
  auto writer = LmdbWriter::Create(path);
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.status().message(),
            "output '" + path + "' already exists; refusing to overwrite it");
  auto reader = LmdbReader::Open(path);  // untouched
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->Count(), 2);
}

}  // namespace
}  // namespace dtrain
