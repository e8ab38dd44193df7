// CreateCommunicator for builds with MPI (Open MPI): the world communicator when this process was
// started by mpirun (OMPI_COMM_WORLD_SIZE) or by srun (PMIX_RANK / SLURM_PROCID with PMIx), else
// a single process without initialising MPI at all.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <memory>
#include <vector>

#include "distributed/backends/mpi_heartbeat.h"
#include "distributed/communicator.h"

namespace dtrain {
namespace {

bool LaunchedByMpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_RANK");
}

Status MpiError(const char* what, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return IoError(std::string(what) + " failed: " + std::string(text, length));
}

// Runs `call(offset, n)` over [0, count) in pieces MPI's int counts can hold.
template <typename Call>
Status InPieces(int64_t count, const char* what, Call call) {
  for (int64_t done = 0; done < count;) {
    const int n = static_cast<int>(std::min<int64_t>(count - done, INT_MAX));
    const int code = call(done, n);
    if (code != MPI_SUCCESS) return MpiError(what, code);
    done += n;
  }
  return Status::Ok();
}

std::vector<std::string> GatherHostNames(int size) {
  char mine[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(mine, &length);
  std::vector<char> all(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> hosts;
  for (int r = 0; r < size; ++r)
    hosts.emplace_back(&all[static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
  return hosts;
}

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // Errors come back as codes (and then as a Status), instead of aborting in the library.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    hosts_ = GatherHostNames(size_);
    heartbeat_ = std::make_unique<MpiHeartbeat>(MPI_COMM_WORLD, hosts_);
  }
  ~MpiCommunicator() override {
    heartbeat_.reset();
    MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string host(int r) const override { return hosts_.at(r); }
  std::string description() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string v(version, length);
    return "MPI, " + v.substr(0, v.find(',')) + ", rank " + std::to_string(rank_) + " of " +
           std::to_string(size_);
  }

  Status Broadcast(float* data, int64_t count, int root) override {
    heartbeat_->Entered();
    return InPieces(count, "MPI_Bcast", [&](int64_t at, int n) {
      return MPI_Bcast(data + at, n, MPI_FLOAT, root, MPI_COMM_WORLD);
    });
  }

  Status BroadcastBytes(std::string* bytes, int root) override {
    heartbeat_->Entered();
    int64_t length = static_cast<int64_t>(bytes->size());
    int code = MPI_Bcast(&length, 1, MPI_INT64_T, root, MPI_COMM_WORLD);
    if (code != MPI_SUCCESS) return MpiError("MPI_Bcast", code);
    bytes->resize(static_cast<size_t>(length));
    return InPieces(length, "MPI_Bcast", [&](int64_t at, int n) {
      return MPI_Bcast(&(*bytes)[at], n, MPI_BYTE, root, MPI_COMM_WORLD);
    });
  }

  Status AllreduceSum(float* data, int64_t count) override {
    heartbeat_->Entered();
    return InPieces(count, "MPI_Allreduce", [&](int64_t at, int n) {
      return MPI_Allreduce(MPI_IN_PLACE, data + at, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    });
  }

  Status AllreduceSum(double* data, int64_t count) override {
    heartbeat_->Entered();
    return InPieces(count, "MPI_Allreduce", [&](int64_t at, int n) {
      return MPI_Allreduce(MPI_IN_PLACE, data + at, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    });
  }

  std::string DescribeMissingRanks() const override { return heartbeat_->Describe(); }

  [[noreturn]] void Abort(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);  // MPI_Abort does not return; this is for the compiler
  }

 private:
  int rank_ = 0, size_ = 1;
  std::vector<std::string> hosts_;
  std::unique_ptr<MpiHeartbeat> heartbeat_;
};

}  // namespace

StatusOr<std::unique_ptr<Communicator>> CreateCommunicator() {
  if (!LaunchedByMpi()) return SingleProcessCommunicator();
  int provided = 0;
  // Collectives run on the training thread (broadcasts, test scores) and on the gradient thread
  // (allreduce), never at once; the heartbeat thread sends and receives beside them.
  const int code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  if (code != MPI_SUCCESS) return MpiError("MPI_Init_thread", code);
  if (provided < MPI_THREAD_MULTIPLE) {
    return Unsupported(
        "this MPI library was built without MPI_THREAD_MULTIPLE, which dtrain's "
        "heartbeat thread needs");
  }
  return std::unique_ptr<Communicator>(new MpiCommunicator());
}

}  // namespace dtrain
