// CreateCommunicator for builds without MPI: every process trains alone.
#include "distributed/communicator.h"

namespace dtrain {

StatusOr<std::unique_ptr<Communicator>> CreateCommunicator() { return SingleProcessCommunicator(); }

}  // namespace dtrain
