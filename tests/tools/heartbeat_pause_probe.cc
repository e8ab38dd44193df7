// heartbeat_pause_probe: one MPI rank with a heartbeat, for the test of a rank that is stopped
// and resumed (tests/distributed/mpi_heartbeat_test.cc). Run under `mpirun -np 1`:
//
//   heartbeat_pause_probe SECONDS
//     prints "ready pid N" once its heartbeat has beaten, then asks the heartbeat every 50 ms
//     what it sees; the first non-empty report is printed as "report: ..." and the probe exits
//     0. With no report within SECONDS it prints "no report" and exits 1.
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "distributed/backends/mpi_heartbeat.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: heartbeat_pause_probe SECONDS\n");
    return 2;
  }
  const double seconds = std::atof(argv[1]);
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int code = 1;
  {
    dtrain::MpiHeartbeat heartbeat(MPI_COMM_WORLD, {"probe-host"});
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::printf("ready pid %d\n", static_cast<int>(getpid()));
    std::fflush(stdout);
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    std::string report;
    while (report.empty() && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      report = heartbeat.Describe();
    }
    if (report.empty()) {
      std::printf("no report\n");
    } else {
      std::printf("report: %s\n", report.c_str());
      code = 0;
    }
    std::fflush(stdout);
  }
  MPI_Finalize();
  return code;
}
