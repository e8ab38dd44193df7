#include "data/lmdb_db.h"

#include <lmdb.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>

#include "core/logging.h"
#include "core/printable.h"

namespace dtrain {
namespace {

namespace fs = std::filesystem;

std::string LmdbMessage(const std::string& path, const char* what, int rc) {
  return "LMDB '" + path + "': " + what + " failed: " + mdb_strerror(rc);
}

}  // namespace

// ---- Faults inside liblmdb ----------------------------------------------------------------------

namespace {

// The reader the calling thread is inside liblmdb for, or null.
thread_local const LmdbReader* t_inside = nullptr;
struct sigaction g_previous_segv, g_previous_bus;

// Async-signal-safe: write(2) of NUL-terminated pieces.
void WriteAll(const char* text) {
  size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace

// Marks the calling thread as inside liblmdb for `reader` while it lives.
class InsideLmdb {
 public:
  explicit InsideLmdb(const LmdbReader* reader) : previous_(t_inside) { t_inside = reader; }
  ~InsideLmdb() { t_inside = previous_; }
  InsideLmdb(const InsideLmdb&) = delete;
  InsideLmdb& operator=(const InsideLmdb&) = delete;

  static void OnFault(int signal, siginfo_t* info, void* context) {
    const LmdbReader* reader = t_inside;
    if (!reader) {
      // Not ours: the default action (or whatever was installed before) on the re-executed fault.
      sigaction(signal, signal == SIGSEGV ? &g_previous_segv : &g_previous_bus, nullptr);
      return;
    }
    char count[24];
    int at = sizeof(count) - 1;
    count[at] = '\0';
    int64_t n = reader->moves_ + 1;
    do {
      count[--at] = static_cast<char>('0' + n % 10);
      n /= 10;
    } while (n > 0 && at > 0);
    WriteAll("dtrain: error: LMDB '");
    WriteAll(reader->path_.c_str());
    WriteAll(signal == SIGSEGV ? "' is damaged: liblmdb crashed (SIGSEGV) "
                               : "' is damaged or was cut short: liblmdb crashed (SIGBUS) ");
    if (reader->last_key_[0]) {
      WriteAll("reading the record after '");
      WriteAll(reader->last_key_);
      WriteAll("' (");
      WriteAll(count + at);
      WriteAll(" records read before it)");
    } else {
      WriteAll("reading its first record");
    }
    WriteAll("; its data.mdb is unreadable from there: rebuild it or copy it again\n");
    _exit(1);
  }

  static void InstallHandler() {
    static std::once_flag once;
    std::call_once(once, [] {
      struct sigaction action;
      std::memset(&action, 0, sizeof(action));
      action.sa_sigaction = &InsideLmdb::OnFault;
      action.sa_flags = SA_SIGINFO;
      sigemptyset(&action.sa_mask);
      sigaction(SIGSEGV, &action, &g_previous_segv);
      sigaction(SIGBUS, &action, &g_previous_bus);
    });
  }

 private:
  const LmdbReader* previous_;
};

std::string PrintableKey(std::string_view key) { return PrintableBytes(key, 64); }

std::string RecordKey(int64_t index, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%0*lld", digits, static_cast<long long>(index));
  return buffer;
}

// ---- LmdbReader ---------------------------------------------------------------------------------

// LMDB maps data.mdb into memory: reading a page past the end of a truncated file would kill the
// process with SIGBUS, so the pages the database says it uses must all be in the file.
Status LmdbReader::CheckNotTruncated() const {
  MDB_envinfo info;
  MDB_stat stat;
  int rc = mdb_env_info(env_.get(), &info);
  if (rc != MDB_SUCCESS) return Error("mdb_env_info", rc);
  rc = mdb_env_stat(env_.get(), &stat);
  if (rc != MDB_SUCCESS) return Error("mdb_env_stat", rc);
  std::error_code ec;
  const auto file_size = fs::file_size(fs::path(path_) / "data.mdb", ec);
  if (ec) return IoError("LMDB '" + path_ + "': cannot read the size of data.mdb: " + ec.message());
  const uint64_t needed = (static_cast<uint64_t>(info.me_last_pgno) + 1) * stat.ms_psize;
  if (file_size < needed) {
    return DataLoss("LMDB '" + path_ + "' is truncated: data.mdb has " + std::to_string(file_size) +
                    " bytes, its pages need " + std::to_string(needed));
  }
  return Status::Ok();
}

StatusOr<std::unique_ptr<LmdbReader>> LmdbReader::Open(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return NotFound("LMDB '" + path + "' does not exist");
  if (!fs::is_directory(path, ec)) {
    return InvalidArgument("LMDB '" + path + "' is not a directory (an LMDB is a directory " +
                           "holding data.mdb)");
  }
  if (!fs::exists(fs::path(path) / "data.mdb", ec)) {
    return NotFound("LMDB '" + path + "' has no data.mdb: not an LMDB");
  }
  if (fs::file_size(fs::path(path) / "data.mdb", ec) == 0 && !ec) {
    return DataLoss("LMDB '" + path +
                    "': data.mdb is empty (0 bytes): the conversion that wrote "
                    "it did not finish, or a copy of it failed");
  }

  std::unique_ptr<LmdbReader> reader(new LmdbReader(path));
  InsideLmdb::InstallHandler();
  InsideLmdb inside(reader.get());
  DT_RETURN_IF_ERROR(reader->OpenEnvironment());
  DT_RETURN_IF_ERROR(reader->CheckNotTruncated());

  int rc = mdb_txn_begin(reader->env_.get(), nullptr, MDB_RDONLY, &reader->txn_);
  if (rc != MDB_SUCCESS) return reader->Error("mdb_txn_begin", rc);
  MDB_dbi dbi;
  rc = mdb_dbi_open(reader->txn_, nullptr, 0, &dbi);
  if (rc != MDB_SUCCESS) return reader->Error("mdb_dbi_open", rc);
  MDB_stat stat;
  rc = mdb_stat(reader->txn_, dbi, &stat);
  if (rc != MDB_SUCCESS) return reader->Error("mdb_stat", rc);
  reader->count_ = static_cast<int64_t>(stat.ms_entries);
  rc = mdb_cursor_open(reader->txn_, dbi, &reader->cursor_);
  if (rc != MDB_SUCCESS) return reader->Error("mdb_cursor_open", rc);
  DT_RETURN_IF_ERROR(reader->SeekToFirst());
  return reader;
}

LmdbReader::~LmdbReader() {
  if (cursor_) mdb_cursor_close(cursor_);
  if (txn_) mdb_txn_abort(txn_);
}

namespace {

// LMDB allows one environment per database and process: its locks belong to the process, and a
// second mdb_env_open of a directory the process has open resets the reader table the first one
// uses (LMDB's caveats), which can leave readers waiting forever. So this process's readers of
// one directory (a train and a test net on the same LMDB, the ranks of an in-process job) share
// one environment, each with its own read transaction (MDB_NOTLS). Opening and closing
// environments is serialised.
std::mutex g_environments_mutex;
std::map<std::string, std::weak_ptr<MDB_env>> g_environments;  // by canonical directory

void CloseEnvironment(MDB_env* env) {
  std::lock_guard<std::mutex> lock(g_environments_mutex);
  mdb_env_close(env);
}

}  // namespace

Status LmdbReader::OpenEnvironment() {
  std::error_code ec;
  std::string key = fs::weakly_canonical(path_, ec).string();
  if (ec) key = path_;
  std::lock_guard<std::mutex> lock(g_environments_mutex);
  if ((env_ = g_environments[key].lock())) return Status::Ok();
  MDB_env* env = nullptr;
  int rc = mdb_env_create(&env);
  if (rc != MDB_SUCCESS) return Error("mdb_env_create", rc);
  const unsigned int flags = MDB_RDONLY | MDB_NOTLS;
  rc = mdb_env_open(env, path_.c_str(), flags, 0664);
  if (rc == EACCES || rc == EROFS) {
    // A data set on a read-only drive: no lock file can be created there. Read without locking,
    // which is safe as long as nobody writes the database meanwhile.
    DT_LOG(WARNING) << "LMDB '" << path_ << "': " << mdb_strerror(rc)
                    << " opening the lock file; reading without locking (MDB_NOLOCK)";
    mdb_env_close(env);
    rc = mdb_env_create(&env);
    if (rc != MDB_SUCCESS) return Error("mdb_env_create", rc);
    rc = mdb_env_open(env, path_.c_str(), flags | MDB_NOLOCK, 0664);
  }
  if (rc != MDB_SUCCESS) {
    mdb_env_close(env);
    return Error("mdb_env_open", rc);
  }
  env_ = std::shared_ptr<MDB_env>(env, CloseEnvironment);
  g_environments[key] = env_;
  return Status::Ok();
}

Status LmdbReader::Error(const char* what, int rc) const {
  if (rc == ENOENT) return NotFound(LmdbMessage(path_, what, rc));
  return IoError(LmdbMessage(path_, what, rc));
}

Status LmdbReader::Move(int op, const std::string* at) {
  MDB_val key, value;
  if (at) {
    op = MDB_SET_KEY;
    key.mv_data = const_cast<char*>(at->data());
    key.mv_size = at->size();
  }
  int rc;
  {
    InsideLmdb inside(this);
    rc = mdb_cursor_get(cursor_, &key, &value, static_cast<MDB_cursor_op>(op));
    if (rc == MDB_SUCCESS) {
      // Copied while still inside: the key's bytes are read from the map.
      const std::string printable =
          PrintableKey(std::string_view(static_cast<const char*>(key.mv_data), key.mv_size));
      std::snprintf(last_key_, sizeof(last_key_), "%s", printable.c_str());
    }
  }
  moves_ = op == MDB_FIRST ? 0 : moves_ + 1;
  if (rc == MDB_NOTFOUND) {
    valid_ = false;
    key_ = value_ = std::string_view();
    return Status::Ok();
  }
  if (rc != MDB_SUCCESS) {
    valid_ = false;
    key_ = value_ = std::string_view();
    return Error("mdb_cursor_get", rc);
  }
  valid_ = true;
  key_ = std::string_view(static_cast<const char*>(key.mv_data), key.mv_size);
  value_ = std::string_view(static_cast<const char*>(value.mv_data), value.mv_size);
  return Status::Ok();
}

Status LmdbReader::SeekToFirst() { return Move(MDB_FIRST); }

Status LmdbReader::SeekToRecord(int64_t index) {
  if (index < 0 || index >= count_) {
    return InvalidArgument("LMDB '" + path_ + "': record " + std::to_string(index) +
                           " is outside its " + std::to_string(count_) + " records");
  }
  if (keys_.empty()) {
    keys_.reserve(static_cast<size_t>(count_));
    DT_RETURN_IF_ERROR(SeekToFirst());
    for (int64_t i = 0; i < count_ && valid_; ++i) {
      keys_.emplace_back(key_);
      DT_RETURN_IF_ERROR(Move(MDB_NEXT));
    }
    if (static_cast<int64_t>(keys_.size()) != count_) {
      keys_.clear();
      return DataLoss("LMDB '" + path_ + "' holds fewer records than its count says");
    }
  }
  DT_RETURN_IF_ERROR(Move(MDB_SET_KEY, &keys_[static_cast<size_t>(index)]));
  if (!valid_) return DataLoss("LMDB '" + path_ + "': a record's key was not found again");
  return Status::Ok();
}

Status LmdbReader::Next(bool* wrapped) {
  if (wrapped) *wrapped = false;
  DT_RETURN_IF_ERROR(Move(MDB_NEXT));
  if (valid_) return Status::Ok();
  if (wrapped) *wrapped = true;
  return SeekToFirst();
}

// ---- LmdbWriter ---------------------------------------------------------------------------------

StatusOr<std::unique_ptr<LmdbWriter>> LmdbWriter::Create(const std::string& path,
                                                         size_t initial_map_size) {
  std::error_code ec;
  if (fs::exists(path, ec)) {
    return InvalidArgument("output '" + path + "' already exists; refusing to overwrite it");
  }
  if (!fs::create_directories(path, ec) || ec) {
    return IoError("cannot create LMDB directory '" + path + "': " + ec.message());
  }
  std::unique_ptr<LmdbWriter> writer(new LmdbWriter(path));
  int rc = mdb_env_create(&writer->env_);
  if (rc != MDB_SUCCESS) return writer->Error("mdb_env_create", rc);
  rc = mdb_env_set_mapsize(writer->env_, initial_map_size);
  if (rc != MDB_SUCCESS) return writer->Error("mdb_env_set_mapsize", rc);
  rc = mdb_env_open(writer->env_, path.c_str(), 0, 0664);
  if (rc != MDB_SUCCESS) return writer->Error("mdb_env_open", rc);
  writer->pending_.reserve(kPutsPerCommit);
  return writer;
}

LmdbWriter::~LmdbWriter() {
  if (env_) mdb_env_close(env_);
}

Status LmdbWriter::Error(const char* what, int rc) const {
  return IoError(LmdbMessage(path_, what, rc));
}

Status LmdbWriter::Put(std::string key, std::string value) {
  if (!env_) return InvalidArgument("LMDB '" + path_ + "': Put after Close");
  pending_.emplace_back(std::move(key), std::move(value));
  if (static_cast<int>(pending_.size()) >= kPutsPerCommit) return Commit();
  return Status::Ok();
}

Status LmdbWriter::TryCommit(bool* map_full) {
  *map_full = false;
  MDB_txn* txn = nullptr;
  int rc = mdb_txn_begin(env_, nullptr, 0, &txn);
  if (rc != MDB_SUCCESS) return Error("mdb_txn_begin", rc);
  MDB_dbi dbi;
  rc = mdb_dbi_open(txn, nullptr, 0, &dbi);
  if (rc != MDB_SUCCESS) {
    mdb_txn_abort(txn);
    return Error("mdb_dbi_open", rc);
  }
  for (auto& [key, value] : pending_) {
    MDB_val k{key.size(), key.data()};
    MDB_val v{value.size(), value.data()};
    rc = mdb_put(txn, dbi, &k, &v, 0);
    if (rc != MDB_SUCCESS) {
      mdb_txn_abort(txn);
      if (rc == MDB_MAP_FULL) {
        *map_full = true;
        return Status::Ok();
      }
      return Error("mdb_put", rc);
    }
  }
  rc = mdb_txn_commit(txn);  // frees txn whatever the outcome
  if (rc == MDB_MAP_FULL) {
    *map_full = true;
    return Status::Ok();
  }
  if (rc != MDB_SUCCESS) return Error("mdb_txn_commit", rc);
  return Status::Ok();
}

Status LmdbWriter::Commit() {
  if (pending_.empty()) return Status::Ok();
  if (!env_) return InvalidArgument("LMDB '" + path_ + "': Commit after Close");
  for (;;) {
    bool map_full = false;
    DT_RETURN_IF_ERROR(TryCommit(&map_full));
    if (!map_full) break;
    MDB_envinfo info;
    int rc = mdb_env_info(env_, &info);
    if (rc != MDB_SUCCESS) return Error("mdb_env_info", rc);
    const size_t new_size = info.me_mapsize * 2;
    DT_LOG(INFO) << "LMDB '" << path_ << "': map full, doubling the map size to " << new_size
                 << " bytes";
    rc = mdb_env_set_mapsize(env_, new_size);
    if (rc != MDB_SUCCESS) return Error("mdb_env_set_mapsize", rc);
  }
  committed_ += static_cast<int64_t>(pending_.size());
  pending_.clear();
  return Status::Ok();
}

Status LmdbWriter::Close() {
  if (!env_) return Status::Ok();
  DT_RETURN_IF_ERROR(Commit());
  mdb_env_close(env_);
  env_ = nullptr;
  return Status::Ok();
}

}  // namespace dtrain
