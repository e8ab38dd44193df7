#include "core/machine_cores.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "kernels/compute_threads.h"

namespace dtrain {
namespace {

constexpr char kProcStat[] =
    "cpu  900 0 90 9000 0 0 0 5 0 0\n"
    "cpu0 100 2 30 4000 7 4 1 3 0 0\n"
    "cpu1 800 0 60 5000 0 0 2 2 0 0\n"
    "intr 12345 0 0\n"
    "ctxt 999\n";

TEST(MachineCores, BusyTicksSumTheListedCpusWithoutIdleIowaitOrSteal) {
  EXPECT_EQ(BusyTicksOfCpus(kProcStat, {0}), 100 + 2 + 30 + 4 + 1);
  EXPECT_EQ(BusyTicksOfCpus(kProcStat, {1}), 800 + 60 + 2);
  EXPECT_EQ(BusyTicksOfCpus(kProcStat, {0, 1}), 137 + 862);
}

TEST(MachineCores, BusyTicksOfACpuWithoutItsLineAreUnknown) {
  EXPECT_EQ(BusyTicksOfCpus(kProcStat, {0, 2}), std::nullopt);
  EXPECT_EQ(BusyTicksOfCpus("cpu0 1 2\n", {0}), std::nullopt);  // too few fields
  EXPECT_EQ(BusyTicksOfCpus("", {0}), std::nullopt);
}

TEST(MachineCores, UsableCoresAreAtLeastOneAndAtMostTheMachines) {
  EXPECT_GE(UsableCores(), 1);
  EXPECT_LE(UsableCores(), static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
}

// A child process that spins counts as another process's load; a thread of this process that
// spins does not. Other tests running beside this one only add load, so the bounds are one-sided
// where they can be.
TEST(MachineCores, AnotherProcessSpinningCountsAndThisProcessesOwnThreadsDoNot) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (volatile uint64_t i = 0;; i = i + 1) {
    }
  }
  const std::optional<double> with_child = CoresBusyWithOthers(std::chrono::milliseconds(400));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(with_child.has_value());
  EXPECT_GE(*with_child, 0.6);

  std::atomic<bool> stop{false};
  std::thread spinner([&] {
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  const std::optional<double> with_own_thread = CoresBusyWithOthers(std::chrono::milliseconds(400));
  stop = true;
  spinner.join();
  ASSERT_TRUE(with_own_thread.has_value());
  EXPECT_LT(*with_own_thread, *with_child - 0.4);
}

// Restores OMP_NUM_THREADS (ctest sets it to 1) when the test ends.
class SavedOmpNumThreads {
 public:
  SavedOmpNumThreads() {
    const char* value = std::getenv("OMP_NUM_THREADS");
    if (value) saved_ = value;
    had_ = value != nullptr;
  }
  ~SavedOmpNumThreads() {
    if (had_) {
      setenv("OMP_NUM_THREADS", saved_.c_str(), 1);
    } else {
      unsetenv("OMP_NUM_THREADS");
    }
  }

 private:
  bool had_ = false;
  std::string saved_;
};

TEST(MachineCores, DefaultThreadsLeaveTheCoreOfABusyProcessAlone) {
  SavedOmpNumThreads saved;
  unsetenv("OMP_NUM_THREADS");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (volatile uint64_t i = 0;; i = i + 1) {
    }
  }
  const kernels::ThreadChoice choice = kernels::DefaultComputeThreads();
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_GE(choice.threads, 1);
  EXPECT_LE(choice.threads, std::max(1, UsableCores() - 1)) << choice.why;
  EXPECT_NE(choice.why.find("other processes using"), std::string::npos) << choice.why;
}

TEST(MachineCores, DefaultThreadsFollowOmpNumThreadsWhenSet) {
  SavedOmpNumThreads saved;
  setenv("OMP_NUM_THREADS", "3", 1);
  const kernels::ThreadChoice choice = kernels::DefaultComputeThreads();
  EXPECT_EQ(choice.threads, 3);
  EXPECT_EQ(choice.why, "OMP_NUM_THREADS=3");
}

}  // namespace
}  // namespace dtrain
