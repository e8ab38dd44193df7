#include "data/lmdb_record_source.h"

#include "core/logging.h"

namespace dtrain {

StatusOr<std::unique_ptr<LmdbRecordSource>> LmdbRecordSource::Open(const std::string& path,
                                                                   uint32_t skip, bool shuffle,
                                                                   uint64_t shuffle_seed) {
  DT_ASSIGN_OR_RETURN(std::unique_ptr<LmdbReader> reader, LmdbReader::Open(path));
  std::unique_ptr<LmdbRecordSource> source(new LmdbRecordSource(std::move(reader)));
  source->skip_ = skip;
  if (shuffle && source->RecordCount() > 0) {
    source->order_ = std::make_unique<EpochOrder>(source->RecordCount(), true, shuffle_seed);
  }
  return source;
}

std::string LmdbRecordSource::where() const { return "LMDB '" + path() + "'"; }

std::string LmdbRecordSource::where_record() const {
  return where() + ": record '" + PrintableKey(key()) + "'";
}

Status LmdbRecordSource::Rewind() {
  cursor_ = 0;
  DT_RETURN_IF_ERROR(reader_->SeekToFirst());
  for (uint32_t i = 0; i < skip_; ++i) DT_RETURN_IF_ERROR(reader_->Next());
  return Status::Ok();
}

Status LmdbRecordSource::ReadAt(int64_t position) {
  if (order_) {
    cursor_ = position;
    return reader_->SeekToRecord(order_->RecordAt(position + skip_));
  }
  if (cursor_ < 0 || position < cursor_) {
    // The sequence wraps every RecordCount() records, so only the remainder moves the cursor.
    DT_RETURN_IF_ERROR(Rewind());
    for (int64_t i = 0; i < position % RecordCount(); ++i) DT_RETURN_IF_ERROR(reader_->Next());
    cursor_ = position;
    return Status::Ok();
  }
  for (; cursor_ < position; ++cursor_) {
    bool wrapped = false;
    DT_RETURN_IF_ERROR(reader_->Next(&wrapped));
    if (wrapped) DT_LOG(INFO) << "Restarting data prefetching from start.";
  }
  return Status::Ok();
}

}  // namespace dtrain
