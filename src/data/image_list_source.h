// ImageListSource: the images of an image list file (data/image_list.h) as a RecordSource, in
// ImageData's order.
//
// Position p is the entry at `skip` + p of the list walked epoch after epoch; with shuffle,
// epoch e (of the positions after the skip) visits the list in its own permutation, drawn from
// the seed and e (Fisher-Yates, data/image_list.h), so an entry depends on the seed and the
// position only. Random access: EntryAt and ReadAt work at any position. The entries (and the
// references EntryAt returns) live as long as the source. One thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/image_list.h"
#include "data/record_source.h"

namespace dtrain {

class ImageListSource : public RecordSource {
 public:
  // Reads the list file `path` (errors name it, and the line of a bad line).
  static StatusOr<std::unique_ptr<ImageListSource>> Open(const std::string& path, uint32_t skip,
                                                         bool shuffle, uint64_t seed);

  int64_t RecordCount() const override { return static_cast<int64_t>(list_.size()); }
  Status ReadAt(int64_t position) override;

  // The entry at `position`; the entry ReadAt made current.
  const ImageListEntry& EntryAt(int64_t position);
  const ImageListEntry& entry() const { return *current_; }
  const std::string& path() const { return path_; }

 private:
  ImageListSource() = default;

  std::string path_;
  std::vector<ImageListEntry> list_;
  uint32_t skip_ = 0;
  bool shuffle_ = false;
  uint64_t seed_ = 0;
  int64_t order_epoch_ = -1;  // the epoch whose permutation order_ holds
  std::vector<int64_t> order_;
  const ImageListEntry* current_ = nullptr;
};

}  // namespace dtrain
