#include "data/image_list_source.h"

#include "core/rng.h"

namespace dtrain {
namespace {

// Distinguishes the shuffle streams from the per-position transform streams of the same seed.
constexpr uint64_t kShuffleStream = 0x53485546464c45ull;  // "SHUFFLE"

}  // namespace

StatusOr<std::unique_ptr<ImageListSource>> ImageListSource::Open(const std::string& path,
                                                                 uint32_t skip, bool shuffle,
                                                                 uint64_t seed) {
  DT_ASSIGN_OR_RETURN(std::vector<ImageListEntry> list, ReadImageList(path));
  std::unique_ptr<ImageListSource> source(new ImageListSource());
  source->path_ = path;
  source->list_ = std::move(list);
  source->skip_ = skip;
  source->shuffle_ = shuffle;
  source->seed_ = seed;
  return source;
}

const ImageListEntry& ImageListSource::EntryAt(int64_t position) {
  const int64_t count = static_cast<int64_t>(list_.size());
  const int64_t at = position + skip_;
  const int64_t epoch = at / count;
  if (!shuffle_) return list_[at % count];
  if (epoch != order_epoch_) {
    order_.resize(list_.size());
    for (int64_t i = 0; i < count; ++i) order_[i] = i;
    Rng rng(DeriveSeed(seed_ ^ kShuffleStream, static_cast<uint64_t>(epoch)));
    ShuffleWith(rng, &order_);
    order_epoch_ = epoch;
  }
  return list_[order_[at % count]];
}

Status ImageListSource::ReadAt(int64_t position) {
  current_ = &EntryAt(position);
  return Status::Ok();
}

}  // namespace dtrain
