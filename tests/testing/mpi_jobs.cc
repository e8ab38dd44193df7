#include "testing/mpi_jobs.h"

#include "testing/run_command.h"

namespace dtrain::testing {

std::string WhyNoMpiJobs() {
  if (!DTRAIN_WITH_MPI) return "dtrain is built without MPI (DTRAIN_WITH_MPI=OFF)";
  if (RunShell("command -v mpirun >/dev/null").exit_code != 0) {
    return "mpirun is not installed (scripts/install-deps.sh installs it)";
  }
  return "";
}

}  // namespace dtrain::testing
