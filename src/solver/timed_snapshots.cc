#include "solver/timed_snapshots.h"

#include <memory>

#include "core/logging.h"

namespace dtrain {

std::function<SolverAction()> WithTimedSnapshots(std::function<SolverAction()> source,
                                                 double interval_s, bool clock_owner,
                                                 SnapshotClock now) {
  if (interval_s <= 0 || !clock_owner) return source;
  const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(interval_s));
  auto last = std::make_shared<std::chrono::steady_clock::time_point>(now());
  return [source = std::move(source), interval, interval_s, now = std::move(now), last] {
    const SolverAction requested = source ? source() : SolverAction::kNone;
    const auto time = now();
    if (requested != SolverAction::kNone || time - *last < interval) return requested;
    *last = time;
    DT_LOG(INFO) << "Snapshot after " << interval_s << " s (snapshot_interval_s).";
    return SolverAction::kSnapshot;
  };
}

}  // namespace dtrain
