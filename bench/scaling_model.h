// ScalingModel: projects data-parallel iteration time and weak-scaling efficiency to clusters we
// cannot run here, from what one iteration measured on this machine (forward, backward and update
// times, each gradient bucket's size and the moment backward finished it) and a model of the
// network (bandwidth, per-message latency).
//
// The model is what data_parallel.h does: buckets are allreduced one after another on a
// communication thread, each starting when backward has finished it and the previous bucket is
// done; the iteration ends when both backward and the last allreduce are done, then the update
// runs. A ring allreduce of S bytes over N nodes takes 2(N-1)/N * S / bandwidth + 2(N-1) *
// latency. Not modelled: the CPU the allreduce takes from compute, contention in the fabric,
// stragglers. Weak scaling: every node keeps its batch, so efficiency = T(1) / T(N).
// Pure functions.
#pragma once

#include <cstddef>
#include <vector>

namespace dtrain {

struct LinkModel {
  double bytes_per_second = 0;
  double latency_seconds = 0;
};

struct IterationProfile {
  double forward_seconds = 0;
  double backward_seconds = 0;
  double update_seconds = 0;
  struct Bucket {
    size_t bytes = 0;
    double ready_seconds = 0;  // after backward started
  };
  std::vector<Bucket> buckets;  // in the order they are allreduced
};

double RingAllreduceSeconds(size_t bytes, int nodes, const LinkModel& link);

// One iteration on `nodes` nodes (nodes == 1: no communication).
double ProjectIterationSeconds(const IterationProfile& profile, int nodes, const LinkModel& link);

// T(1) / T(nodes).
double ProjectEfficiency(const IterationProfile& profile, int nodes, const LinkModel& link);

}  // namespace dtrain
