// dtrain_sync_bench: how well data-parallel training's gradient exchange (src/dist/) uses the
// network, and how far it would scale. Run under mpirun, one rank per host:
//
//   mpirun -np 2 ... build/dtrain_sync_bench bench/nets/googlenet.prototxt [--iterations=3]
//       [--repeats=5] [--threads=1] [--link-gbit=1] [--node-speedup=16]
//
// Measures on the ranks it runs on: (1) one raw allreduce of all gradient bytes vs our bucketed
// exchange of the same bytes (DataParallel::ExchangeGradientsNow; target >= 0.9 of raw);
// (2) a training iteration's forward/backward/update alone and with the gradient exchange
// overlapping backward, hence the share of communication hidden behind backward; (3) from the
// measured profile (per-bucket sizes and the moments backward finishes them), the scaling model
// (dist/scaling_model.h): the 2-node iteration projected for --link-gbit next to the measured
// one, and weak-scaling efficiency on 8/32/128 nodes at 25 and 100 Gbit/s, for a node as fast as
// this rank and one --node-speedup times faster. Rank 0 prints a report and one JSON line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cblas.h>
#include <omp.h>

#include "core/proto_io.h"
#include "dist/communicator.h"
#include "dist/data_parallel.h"
#include "dist/scaling_model.h"
#include "net/net.h"

namespace dtrain {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Options {
  std::string net;
  int iterations = 3;
  int repeats = 5;
  int threads = 1;
  double link_gbit = 0;  // the emulated link, for the 2-node check; 0: no check
  double node_speedup = 16;
};

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      const size_t n = std::strlen(name);
      return a.compare(0, n, name) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char* v = value("--iterations=")) o->iterations = std::atoi(v);
    else if (const char* v = value("--repeats=")) o->repeats = std::atoi(v);
    else if (const char* v = value("--threads=")) o->threads = std::atoi(v);
    else if (const char* v = value("--link-gbit=")) o->link_gbit = std::atof(v);
    else if (const char* v = value("--node-speedup=")) o->node_speedup = std::atof(v);
    else if (a[0] != '-' && o->net.empty()) o->net = a;
    else return false;
  }
  return !o->net.empty() && o->iterations > 0 && o->repeats > 0 && o->threads > 0;
}

// A plain SGD step, as the update's cost.
void Update(Net& net) {
  for (Tensor* p : net.learnable_params()) {
    cblas_saxpy(static_cast<int>(p->count()), -1e-6f, p->diff(), 1, p->mutable_data(), 1);
  }
}

struct Timing {
  double forward = 0, backward = 0, update = 0;
  std::vector<double> layer_done;  // seconds after backward started, per layer index
};

// `iterations` training iterations; the per-layer backward times come from a backward hook.
Status Train(Net& net, int iterations, std::vector<double>* hook_times, Clock::time_point* backward_start,
             Timing* t) {
  *t = Timing();
  t->layer_done.assign(net.layers().size(), 0);
  for (int i = 0; i < iterations; ++i) {
    net.ClearParamDiffs();
    auto start = Clock::now();
    DT_RETURN_IF_ERROR(net.Forward().status());
    t->forward += Since(start);
    *backward_start = Clock::now();
    net.Backward();
    t->backward += Since(*backward_start);
    for (size_t l = 0; l < hook_times->size(); ++l) t->layer_done[l] += (*hook_times)[l];
    start = Clock::now();
    Update(net);
    t->update += Since(start);
  }
  t->forward /= iterations;
  t->backward /= iterations;
  t->update /= iterations;
  for (double& d : t->layer_done) d /= iterations;
  return Status::Ok();
}

Status Run(const Options& o) {
  DT_ASSIGN_OR_RETURN(std::unique_ptr<Communicator> comm, CreateCommunicator());
  openblas_set_num_threads(o.threads);
  omp_set_num_threads(o.threads);
  const bool leader = comm->rank() == 0;
  NetParameter param;
  DT_RETURN_IF_ERROR(ReadTextProto(o.net, &param));
  NetState state;
  state.set_phase(TRAIN);
  DT_ASSIGN_OR_RETURN(std::unique_ptr<Net> net, Net::Create(param, state, 1701, ""));

  // Backward's progress: when each layer's backward finished, after backward started.
  std::vector<double> hook_times(net->layers().size(), 0);
  Clock::time_point backward_start;
  net->AddBackwardHook([&](int layer) { hook_times[layer] = Since(backward_start); });

  Timing alone;
  DT_RETURN_IF_ERROR(Train(*net, 1, &hook_times, &backward_start, &alone));  // warm-up
  DT_RETURN_IF_ERROR(Train(*net, o.iterations, &hook_times, &backward_start, &alone));

  DataParallel data_parallel(*comm, *net);
  int64_t floats = 0;
  for (const Tensor* p : net->learnable_params()) floats += p->count();
  const double bytes = static_cast<double>(floats) * sizeof(float);

  // (1) raw allreduce of everything vs the bucketed exchange.
  std::vector<float> everything(static_cast<size_t>(floats), 1.f);
  std::vector<double> raw, bucketed;
  for (int r = 0; r < o.repeats; ++r) {
    float sync = 0;
    DT_RETURN_IF_ERROR(comm->AllreduceSum(&sync, 1));  // start together
    auto start = Clock::now();
    DT_RETURN_IF_ERROR(comm->AllreduceSum(everything.data(), floats));
    raw.push_back(Since(start));
    DT_RETURN_IF_ERROR(comm->AllreduceSum(&sync, 1));
    start = Clock::now();
    DT_RETURN_IF_ERROR(data_parallel.ExchangeGradientsNow());
    bucketed.push_back(Since(start));
  }
  const double raw_s = Median(raw), bucketed_s = Median(bucketed);

  // (2) training with the exchange overlapping backward.
  Timing synced;
  DT_RETURN_IF_ERROR(Train(*net, o.iterations, &hook_times, &backward_start, &synced));
  DT_RETURN_IF_ERROR(data_parallel.status());
  const double alone_s = alone.forward + alone.backward + alone.update;
  const double synced_s = synced.forward + synced.backward + synced.update;
  const double exposed_s = std::max(0.0, synced_s - alone_s);
  const double hidden = std::clamp(1.0 - exposed_s / bucketed_s, 0.0, 1.0);

  // (3) the scaling model, from the profile measured alone.
  IterationProfile profile;
  profile.forward_seconds = alone.forward;
  profile.backward_seconds = alone.backward;
  profile.update_seconds = alone.update;
  for (const DataParallel::BucketInfo& b : data_parallel.bucket_plan()) {
    profile.buckets.push_back({b.bytes, alone.layer_done[b.ready_after_layer]});
  }
  IterationProfile faster = profile;
  faster.forward_seconds /= o.node_speedup;
  faster.backward_seconds /= o.node_speedup;
  faster.update_seconds /= o.node_speedup;
  for (auto& b : faster.buckets) b.ready_seconds /= o.node_speedup;

  if (!leader) return Status::Ok();
  const double mb = bytes / 1e6;
  std::printf("net %s: %.2fM parameters (%.1f MB of gradients) in %zu bucket(s), %d rank(s), "
              "%d thread(s) each\n", o.net.c_str(), floats / 1e6, mb, profile.buckets.size(),
              comm->size(), o.threads);
  std::printf("allreduce of all gradients: raw %.4f s (%.0f MB/s), bucketed %.4f s (%.0f MB/s): "
              "bucketed reaches %.2f of raw\n", raw_s, mb / raw_s, bucketed_s, mb / bucketed_s,
              raw_s / bucketed_s);
  std::printf("iteration alone %.4f s (forward %.4f, backward %.4f, update %.4f); with the "
              "exchange %.4f s: %.4f s exposed of %.4f s of communication, %.0f%% hidden\n",
              alone_s, alone.forward, alone.backward, alone.update, synced_s, exposed_s,
              bucketed_s, 100 * hidden);
  double projected_2 = 0;
  if (o.link_gbit > 0) {
    // The emulated link: its rate, and the latency of this machine's namespaces (~30 us).
    projected_2 = ProjectIterationSeconds(profile, comm->size(), {o.link_gbit * 125e6, 30e-6});
    std::printf("model check at %.3g Gbit/s, %d nodes: projected iteration %.4f s, measured "
                "%.4f s (%+.0f%%)\n", o.link_gbit, comm->size(), projected_2, synced_s,
                100 * (projected_2 / synced_s - 1));
  }
  const LinkModel links[] = {{25e9 / 8, 15e-6}, {100e9 / 8, 10e-6}};
  const char* link_names[] = {"25 Gbit/s", "100 Gbit/s"};
  const int nodes[] = {8, 32, 128};
  std::printf("projected weak-scaling efficiency (ring allreduce; latency 15 us at 25 Gbit/s, "
              "10 us at 100 Gbit/s):\n");
  std::printf("| node | link | 8 nodes | 32 nodes | 128 nodes |\n|---|---|---|---|---|\n");
  std::string json_table;
  for (int speed = 0; speed < 2; ++speed) {
    const IterationProfile& p = speed == 0 ? profile : faster;
    for (int l = 0; l < 2; ++l) {
      char node[64];
      const double one_node = ProjectIterationSeconds(p, 1, links[l]);
      if (speed == 0) {
        std::snprintf(node, sizeof(node), "as measured (%.3f s/iter)", one_node);
      } else {
        std::snprintf(node, sizeof(node), "%.0fx faster (%.3f s/iter)", o.node_speedup, one_node);
      }
      std::printf("| %s | %s |", node, link_names[l]);
      for (int n : nodes) {
        const double e = ProjectEfficiency(p, n, links[l]);
        std::printf(" %.1f%% |", 100 * e);
        char cell[96];
        std::snprintf(cell, sizeof(cell), "%s\"%s|%s|%d\":%.4f", json_table.empty() ? "" : ",",
                      speed == 0 ? "measured" : "faster", link_names[l], n, e);
        json_table += cell;
      }
      std::printf("\n");
    }
  }
  std::printf("JSON {\"net\":\"%s\",\"ranks\":%d,\"bytes\":%.0f,\"buckets\":%zu,\"raw_s\":%.6f,"
              "\"bucketed_s\":%.6f,\"alone_s\":%.6f,\"synced_s\":%.6f,\"hidden\":%.4f,"
              "\"projected_2_s\":%.6f,\"efficiency\":{%s}}\n",
              o.net.c_str(), comm->size(), bytes, profile.buckets.size(), raw_s, bucketed_s,
              alone_s, synced_s, hidden, projected_2, json_table.c_str());
  return Status::Ok();
}

}  // namespace
}  // namespace dtrain

int main(int argc, char** argv) {
  dtrain::Options options;
  if (!dtrain::ParseOptions(argc, argv, &options)) {
    std::fprintf(stderr, "usage: dtrain_sync_bench NET.prototxt [--iterations=3] [--repeats=5] "
                         "[--threads=1] [--link-gbit=G] [--node-speedup=16]\n");
    return 2;
  }
  const dtrain::Status status = dtrain::Run(options);
  if (!status.ok()) {
    std::fprintf(stderr, "dtrain_sync_bench: %s\n", status.message().c_str());
    return 1;
  }
  return 0;
}
