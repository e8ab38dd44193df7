// LmdbRecordSource: the records of an LMDB (Caffe's Datum records, or the SSD fork's
// AnnotatedDatum records) as a StoredRecordSource.
//
// Position p is the record `skip` + p records after the first in key order, wrapping round
// after the last (Caffe's Data layer order), or, shuffled, the record EpochOrder gives for
// position `skip` + p: a new permutation of every record each epoch, the same on every reader of
// the same seed. Unshuffled, the cursor moves forward one record per position (the positions
// other shards read included, as Caffe's reader does) and starts over from the first record when
// asked for an earlier position. The current record's key() and value() view the memory map and
// stay valid while the source lives. Errors name the LMDB; where() names the current record.
// One thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "data/epoch_order.h"
#include "data/lmdb_db.h"
#include "data/stored_record_source.h"

namespace dtrain {

class LmdbRecordSource : public StoredRecordSource {
 public:
  // Opens the LMDB directory `path` (NotFound naming it when missing); `skip` records are passed
  // over at the start; with `shuffle`, each epoch's order is drawn from `shuffle_seed`.
  static StatusOr<std::unique_ptr<LmdbRecordSource>> Open(const std::string& path, uint32_t skip,
                                                          bool shuffle, uint64_t shuffle_seed);

  int64_t RecordCount() const override { return reader_->Count(); }
  Status ReadAt(int64_t position) override;

  const std::string& path() const { return reader_->path(); }
  std::string_view key() const override { return reader_->key(); }
  std::string_view value() const override { return reader_->value(); }
  // "LMDB 'path'", and with ": record 'key'" after it the current record, for messages.
  std::string where() const override;
  std::string where_record() const override;

 private:
  explicit LmdbRecordSource(std::unique_ptr<LmdbReader> reader) : reader_(std::move(reader)) {}
  // Puts the cursor on position 0: after the skipped records.
  Status Rewind();

  std::unique_ptr<LmdbReader> reader_;
  std::unique_ptr<EpochOrder> order_;  // shuffled: each epoch's record order
  uint32_t skip_ = 0;
  int64_t cursor_ = -1;  // the position the cursor is on; -1 before the first read
};

}  // namespace dtrain
