// Helpers for the data tests: small LMDBs of Datum records built with LmdbWriter (and, through
// testing/files.h, the temporary directory most tests use).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "data/datum.h"
#include "data/lmdb_db.h"
#include "proto/net.pb.h"
#include "testing/files.h"

namespace dtrain::testing {

// Record i of TinyDatum: channels x height x width bytes with value (i * 16 + j) % 256 at CHW
// index j, and label i * 10.
inline Datum TinyDatum(int i, int channels, int height, int width) {
  std::vector<uint8_t> pixels(static_cast<size_t>(channels) * height * width);
  for (size_t j = 0; j < pixels.size(); ++j) pixels[j] = static_cast<uint8_t>((i * 16 + j) % 256);
  return MakeDatum(channels, height, width, pixels.data(), i * 10);
}

// An LMDB at `path` holding `count` TinyDatum records under keys "%08d".
inline void WriteTinyLmdb(const std::string& path, int count, int channels, int height, int width) {
  auto writer = LmdbWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  for (int i = 0; i < count; ++i) {
    ASSERT_TRUE((*writer)
                    ->Put(RecordKey(i), TinyDatum(i, channels, height, width).SerializeAsString())
                    .ok());
  }
  Status closed = (*writer)->Close();
  ASSERT_TRUE(closed.ok()) << closed.message();
}

// A Data layer ("data", tops data and label) reading `source` in batches of `batch_size`.
inline LayerParameter DataLayerParam(const std::string& source, int batch_size) {
  LayerParameter p;
  p.set_name("data");
  p.set_type("Data");
  p.add_top("data");
  p.add_top("label");
  p.mutable_data_param()->set_source(source);
  p.mutable_data_param()->set_batch_size(batch_size);
  p.mutable_data_param()->set_backend(DataParameter::LMDB);
  return p;
}

}  // namespace dtrain::testing
