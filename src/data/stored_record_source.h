// StoredRecordSource: a RecordSource whose current record is a stored value, the bytes a data
// layer parses (a serialized Datum or AnnotatedDatum): an LMDB's records (LmdbRecordSource) or
// those a data server ships untouched (ServedRecordSource, --ship=records). The layers that parse
// such records (Data, AnnotatedData, BoxData) read either through this interface alone, so a
// tcp:// source reads exactly as the LMDB it serves.
//
// key() and value() view the current record and stay valid until the next ReadAt. where() names
// the source for messages ("LMDB 'train_lmdb'", "data server tcp://master:5555"), where_record()
// the current record too ("...: record '00000042'"). One thread at a time, as RecordSource.
#pragma once

#include <string>
#include <string_view>

#include "data/record_source.h"

namespace dtrain {

class StoredRecordSource : public RecordSource {
 public:
  // The current record's key (an LMDB's key; "position N" for a served record) and its bytes.
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  virtual std::string where() const = 0;
  virtual std::string where_record() const = 0;
};

}  // namespace dtrain
