// Communicator: the processes of one training job and the collectives data-parallel training
// needs. The only place dtrain talks MPI (src/distributed/backends/mpi_communicator.cc); a build
// without MPI, or a process not started by mpirun/srun, gets a one-process communicator and trains
// alone.
//
// Collectives block until every rank has joined; all ranks must call them in the same order.
// A communicator is created once per process (MPI allows one initialisation); its collectives
// may run on different threads, but never two at once. DescribeMissingRanks and Abort may be
// called from any thread at any time (DescribeMissingRanks while a collective is stuck).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"

namespace dtrain {

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // The host name rank `r` runs on (exchanged when the communicator was created).
  virtual std::string host(int r) const = 0;
  // "MPI (Open MPI 4.1.4)", "single process", ... for the log.
  virtual std::string description() const = 0;

  // data[0, count) of `root` is copied to every rank.
  virtual Status Broadcast(float* data, int64_t count, int root) = 0;
  // `bytes` of `root` is copied to every rank (resized there).
  virtual Status BroadcastBytes(std::string* bytes, int root) = 0;
  // data[0, count) becomes the element-wise sum over ranks, on every rank.
  virtual Status AllreduceSum(float* data, int64_t count) = 0;
  virtual Status AllreduceSum(double* data, int64_t count) = 0;

  // Which ranks the collective in flight waits for, for a stall report: those that have not
  // reached it and those not heard from lately (stopped, dead or cut off), with their hosts,
  // e.g. "rank 1 (host n1): silent for 62.0 s". Empty when no rank looks missing.
  virtual std::string DescribeMissingRanks() const = 0;
  // Ends every rank of the job with `exit_code` (a rank that fails alone must not leave the
  // others waiting in a collective).
  [[noreturn]] virtual void Abort(int exit_code) = 0;
};

// The job this process belongs to: MPI's world when launched by mpirun or srun (and built with
// MPI), else a single process.
StatusOr<std::unique_ptr<Communicator>> CreateCommunicator();

// The communicator of a process that trains alone.
std::unique_ptr<Communicator> SingleProcessCommunicator();

}  // namespace dtrain
