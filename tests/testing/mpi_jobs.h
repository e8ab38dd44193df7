// Whether this build and this machine can run dtrain as several MPI ranks (mpirun, srun).
#pragma once

#include <string>

namespace dtrain::testing {

// Empty when they can; else why not (dtrain built with DTRAIN_WITH_MPI=OFF, or no mpirun), for
// a test that starts ranks to skip with.
std::string WhyNoMpiJobs();

}  // namespace dtrain::testing
