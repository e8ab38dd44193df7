// RecordSource: where a data layer's training examples come from, read as one endless sequence.
//
// Positions 0, 1, 2, ... walk through the data set epoch after epoch (after the records a layer
// skips at the start, rand_skip). A source that shuffles draws each epoch's order from its seed,
// so the record at a position depends on the seed and the position only: never on the shard, the
// prefetching or how far another reader got. That is what makes sharding and resuming exact: a
// data layer's shard i of n reads positions i, i + n, i + 2n, ... and a snapshot records a
// position (layers/prefetching_data_layer.h), so a resumed reader asks for the same positions.
//
// ReadAt(position) makes the record at `position` the source's current record, which the
// concrete source shows through its own accessors (StoredRecordSource, data/stored_record_source.h:
// the stored bytes of an LMDB's record or of a data server's; ImageListSource: the list entry;
// Hdf5RowSource: one row of each dataset). Positions usually increase; a source that can only move
// forward (an LMDB cursor, the HDF5 file list, a data server's stream) starts over when asked for
// an earlier one. Errors name the file and the record ("LMDB 'train_lmdb': record '00000042'",
// "list.txt:7: image 'a.jpg'").
//
// ExpectShard(index, count) tells the source which positions its reader will ask for (index,
// index + count, ...: the layer's shard); a source that fetches ahead (the data server's) fetches
// that share only, the others ignore it. Any position may still be read. Interrupt ends a wait
// for something outside the process (a data server) at once, from any thread; the next ReadAt
// starts over.
//
// Implementations (data/): LmdbRecordSource (the records of an LMDB), ServedRecordSource (the
// records a data server ships untouched, ranks subscribing to their strided share),
// ImageListSource (ImageData's list of image files), Hdf5RowSource (HDF5Data's list of HDF5
// files), VideoFrameSource (VideoData's frames of a video file). Sources whose unit is a whole
// batch stay batch-level behind their own class: a data server's float batches (transformed on the
// server, read by Data only through DataServerClient) and WindowData's window file (windows drawn
// at random per batch). How a record becomes top blobs (decoding, transform, labels) is the
// layer's, not the source's.
//
// Thread-safety: none; one thread at a time (a data layer's prefetch thread while it runs), except
// Interrupt.
#pragma once

#include <cstdint>

#include "core/status.h"

namespace dtrain {

class RecordSource {
 public:
  virtual ~RecordSource() = default;

  // Records in one epoch; -1 while the source does not know (HDF5 files not reached yet).
  virtual int64_t RecordCount() const = 0;
  // Makes the record at sequence position `position` >= 0 current.
  virtual Status ReadAt(int64_t position) = 0;
  // The reader's shard: it will read positions index, index + count, ... (0 <= index < count).
  virtual void ExpectShard(int index, int count) {}
  // Ends a wait outside the process now; any thread may call it.
  virtual void Interrupt() {}
};

}  // namespace dtrain
