#include "testing/trainable_data.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/rng.h"
#include "data/datum.h"
#include "data/lmdb_db.h"

namespace dtrain::testing {

void WriteTrainableLmdb(const std::string& path, int count, int channels, int size, int classes,
                        unsigned seed) {
  auto writer = LmdbWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  Rng rng(seed);
  std::vector<uint8_t> pixels(static_cast<size_t>(channels) * size * size);
  for (int i = 0; i < count; ++i) {
    const int label = i % classes;
    for (auto& p : pixels) p = static_cast<uint8_t>(rng.UniformInt(96));
    // The label's patch: row band `label` of the image (wrapping), brightened.
    const int row = (label * size / classes) % size;
    for (int c = 0; c < channels; ++c) {
      for (int x = 0; x < size; ++x) pixels[(c * size + row) * size + x] = 255;
    }
    const Datum datum = MakeDatum(channels, size, size, pixels.data(), label);
    ASSERT_TRUE((*writer)->Put(RecordKey(i), datum.SerializeAsString()).ok());
  }
  Status closed = (*writer)->Close();
  ASSERT_TRUE(closed.ok()) << closed.message();
}

}  // namespace dtrain::testing
