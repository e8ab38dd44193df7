// MpiHeartbeat's report about its own rank: a process that was stopped (SIGSTOP, a debugger) and
// resumed has heard nobody during its pause, and must say that the pause was its own before it
// blames the others. One rank under mpirun, stopped by the test for 3 s.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "testing/files.h"
#include "testing/mpi_jobs.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::RunShell;

#ifdef DTRAIN_HEARTBEAT_PAUSE_PROBE
TEST(MpiHeartbeat, AResumedRankSaysThePauseWasItsOwn) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  const std::string script = R"(
    cd ')" + dir.Path("") +
                             R"('
    mpirun --allow-run-as-root --timeout 60 -np 1 )" DTRAIN_HEARTBEAT_PAUSE_PROBE
                             R"( 30 > out.txt 2>&1 &
    job=$!
    pid=
    for i in $(seq 300); do
      pid=$(sed -n 's/^ready pid \([0-9]*\)$/\1/p' out.txt)
      [ -n "$pid" ] && break
      sleep 0.1
    done
    [ -n "$pid" ] || { echo "the probe never started"; cat out.txt; kill $job; exit 2; }
    kill -STOP $pid
    sleep 3
    kill -CONT $pid
    wait $job
    echo "probe exit $?"
    cat out.txt
  )";
  auto r = RunShell(script);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("probe exit 0"), std::string::npos) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.output, m,
      std::regex(R"(report: this rank \(0, host probe-host\) was itself stopped or stalled for )"
                 R"(([0-9.]+) s \(its own heartbeat paused\))")))
      << r.output;
  // Stopped for 3 s: the reported pause is that long, give or take the beat interval.
  EXPECT_GE(std::stod(m[1]), 2.5) << r.output;
  EXPECT_LE(std::stod(m[1]), 10.0) << r.output;
}
#endif

}  // namespace
}  // namespace dtrain
