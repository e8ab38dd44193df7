// LMDB access: the one place in dtrain that calls liblmdb.
//
// An LMDB data set is a directory holding data.mdb (and lock.mdb); each record is a (key, value)
// pair of bytes, sorted by key. Caffe's data sets store a serialized Datum as the value under a
// zero-padded decimal key ("%08d" for MNIST), so key order is insertion order.
//
// LmdbReader: a read-only cursor held in one long read transaction (MDB_RDONLY | MDB_NOTLS, so
// the thread that opens it need not be the one that reads). Next() wraps round to the first
// record after the last, as Caffe's Data layer does. key()/value() point into the memory map and
// stay valid until the reader's destruction (the end of its read transaction), whatever the cursor
// does meanwhile; the bytes they view may be read from any thread. Cursor moves: one thread at a
// time.
//
// LmdbWriter: creates a new LMDB and puts (key, value) pairs, committing every kPutsPerCommit
// puts (and on Close). The map grows (doubles) whenever a transaction hits MDB_MAP_FULL. A writer
// never opens an existing path: creating over an existing file or directory is an error.
//
// Every lmdb failure comes back as a Status naming the path and mdb_strerror's text. A damaged
// data.mdb can also make liblmdb itself fault (SIGSEGV or SIGBUS on a pointer read from a broken
// page): while a reader is inside liblmdb, a fault handler reports the LMDB, the last record read
// and the count read so far, and ends the process with exit status 1. A fault anywhere else keeps
// its default action (a crash and core dump: a bug, not damaged input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

// liblmdb's handles, kept out of this header.
struct MDB_env;
struct MDB_txn;
struct MDB_cursor;

namespace dtrain {

// The key Caffe's converters give record `index`: zero-padded decimal, `digits` wide
// (convert_mnist_data uses 8, convert_cifar_data 5).
std::string RecordKey(int64_t index, int digits = 8);

// `key` for messages: printable ASCII as it is, other bytes as \xNN, cut after 64 bytes
// (core/printable.h).
std::string PrintableKey(std::string_view key);

class LmdbReader {
 public:
  // Opens the LMDB directory `path`. A missing path is NotFound naming it.
  static StatusOr<std::unique_ptr<LmdbReader>> Open(const std::string& path);
  ~LmdbReader();
  LmdbReader(const LmdbReader&) = delete;
  LmdbReader& operator=(const LmdbReader&) = delete;

  const std::string& path() const { return path_; }
  // Number of records, read once at open.
  int64_t Count() const { return count_; }

  // Positions the cursor at the first record (invalid if the database is empty).
  Status SeekToFirst();
  // Moves to the next record; after the last one, back to the first (and sets *wrapped).
  Status Next(bool* wrapped = nullptr);
  // Positions the cursor at record `index` (0 .. Count() - 1) in key order, for reading in
  // another order than the keys'. The first call reads every key once and keeps them (Count()
  // strings).
  Status SeekToRecord(int64_t index);
  // Whether the cursor is on a record; false only for an empty database.
  bool valid() const { return valid_; }
  std::string_view key() const { return key_; }
  std::string_view value() const { return value_; }

 private:
  explicit LmdbReader(std::string path) : path_(std::move(path)) {}
  Status Error(const char* what, int rc) const;
  Status CheckNotTruncated() const;
  // Runs one cursor operation (MDB_FIRST, MDB_NEXT, or MDB_SET_KEY to `key`) and stores the
  // record it lands on.
  Status Move(int op, const std::string* key = nullptr);

  // Opens the environment of `path_` or joins the one this process has open (see the .cc).
  Status OpenEnvironment();

  std::string path_;
  std::shared_ptr<MDB_env> env_;  // shared by this process's readers of the same directory
  MDB_txn* txn_ = nullptr;
  MDB_cursor* cursor_ = nullptr;
  int64_t count_ = 0;
  bool valid_ = false;
  std::vector<std::string> keys_;  // every key in order, once SeekToRecord needed them
  // For the fault report: records moved to since the first, and the last key, NUL-terminated
  // (printable, as PrintableKey), both copied out of the memory map after each move.
  int64_t moves_ = 0;
  char last_key_[80] = "";

  friend class InsideLmdb;
  std::string_view key_;
  std::string_view value_;
};

class LmdbWriter {
 public:
  static constexpr int kPutsPerCommit = 1000;

  // Creates the LMDB directory `path` (and missing parents). An existing `path` is an error
  // naming it: a writer never overwrites. `initial_map_size` is in bytes; it grows as needed.
  static StatusOr<std::unique_ptr<LmdbWriter>> Create(const std::string& path,
                                                      size_t initial_map_size = size_t{64} << 20);
  // Puts not yet committed (Close not called) are discarded.
  ~LmdbWriter();
  LmdbWriter(const LmdbWriter&) = delete;
  LmdbWriter& operator=(const LmdbWriter&) = delete;

  const std::string& path() const { return path_; }
  // Buffers one pair; commits when kPutsPerCommit pairs are buffered.
  Status Put(std::string key, std::string value);
  // Writes the buffered pairs in one transaction.
  Status Commit();
  // Commits what is left and closes the database.
  Status Close();
  // Records committed so far.
  int64_t committed() const { return committed_; }

 private:
  explicit LmdbWriter(std::string path) : path_(std::move(path)) {}
  Status Error(const char* what, int rc) const;
  // One attempt at writing `pending_`; sets *map_full when the map was too small.
  Status TryCommit(bool* map_full);

  std::string path_;
  MDB_env* env_ = nullptr;
  std::vector<std::pair<std::string, std::string>> pending_;
  int64_t committed_ = 0;
};

}  // namespace dtrain
