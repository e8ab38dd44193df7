// CreateCommunicator for builds with MPI (Open MPI): the world communicator when this process was
// started by mpirun (OMPI_COMM_WORLD_SIZE) or by srun (PMIX_RANK / SLURM_PROCID with PMIx), else
// a single process without initialising MPI at all.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "dist/communicator.h"

namespace dtrain {
namespace {

bool LaunchedByMpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") ||
         std::getenv("PMI_RANK");
}

Status MpiError(const char* what, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return IoError(std::string(what) + " failed: " + std::string(text, length));
}

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // Errors come back as codes (and then as a Status), instead of aborting in the library.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  ~MpiCommunicator() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string description() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string v(version, length);
    return "MPI, " + v.substr(0, v.find(',')) + ", rank " + std::to_string(rank_) + " of " +
           std::to_string(size_);
  }

  Status Broadcast(float* data, int64_t count, int root) override {
    for (int64_t done = 0; done < count;) {
      const int n = static_cast<int>(std::min<int64_t>(count - done, INT_MAX));
      const int code = MPI_Bcast(data + done, n, MPI_FLOAT, root, MPI_COMM_WORLD);
      if (code != MPI_SUCCESS) return MpiError("MPI_Bcast", code);
      done += n;
    }
    return Status::Ok();
  }

  Status AllreduceSum(float* data, int64_t count) override {
    for (int64_t done = 0; done < count;) {
      const int n = static_cast<int>(std::min<int64_t>(count - done, INT_MAX));
      const int code =
          MPI_Allreduce(MPI_IN_PLACE, data + done, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      if (code != MPI_SUCCESS) return MpiError("MPI_Allreduce", code);
      done += n;
    }
    return Status::Ok();
  }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace

StatusOr<std::unique_ptr<Communicator>> CreateCommunicator() {
  if (!LaunchedByMpi()) return SingleProcessCommunicator();
  int provided = 0;
  // Collectives run on the training thread (broadcast) and on the gradient thread (allreduce),
  // never at once.
  const int code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  if (code != MPI_SUCCESS) return MpiError("MPI_Init_thread", code);
  if (provided < MPI_THREAD_SERIALIZED) {
    return Unsupported("this MPI library does not allow collectives from more than one thread "
                       "(MPI_THREAD_SERIALIZED)");
  }
  return std::unique_ptr<Communicator>(new MpiCommunicator());
}

}  // namespace dtrain
