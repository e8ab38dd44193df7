// dtrain_sync_bench: how well data-parallel training's gradient exchange (src/distributed/) uses
// the network, and how far it would scale. Run under mpirun, one rank per host:
//
//   mpirun -np 2 ... build/dtrain_sync_bench bench/nets/googlenet.prototxt [--iterations=3]
//       [--repeats=5] [--threads=1] [--link-gbit=1] [--node-speedups=1,16,64] [--bucket-kb=N]
//
// Measures on the ranks it runs on: (1) one raw allreduce of all gradient bytes vs our bucketed
// exchange of the same bytes (DataParallel::ExchangeGradientsNow; best of --repeats each;
// target >= 0.9 of raw);
// (2) a training iteration's forward/backward/update alone and with the gradient exchange
// overlapping backward, and the training thread's wait for the sums after backward, hence the
// share of communication hidden behind backward; (3) from the
// measured profile (per-bucket sizes and the moments backward finishes them), the scaling model
// (bench/scaling_model.h): the 2-node iteration projected for --link-gbit next to the measured
// one, and weak-scaling efficiency on 8/32/128 nodes at 25 and 100 Gbit/s, for nodes as fast as
// this rank and --node-speedups times faster (default 1,16,64: a rank here is one core of a
// 2-core VM; a 2-socket server node computes tens of times faster, which makes communication
// relatively heavier). Rank 0 prints a report and one JSON line.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/logging.h"
#include "core/proto_io.h"
#include "distributed/communicator.h"
#include "distributed/data_parallel.h"
#include "distributed/trainer.h"
#include "net/net.h"
#include "scaling_model.h"
#include "solver/solver.h"

namespace dtrain {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The best of several runs: a rate-limited TCP link delivers some transfers at half speed (the
// same 227 MB allreduce took 2.0 s or 3.9 s at 1 Gbit/s), whichever code sends them.
double Best(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

struct Options {
  std::string net;
  int iterations = 3;
  int repeats = 5;
  int threads = 1;
  double link_gbit = 0;  // the emulated link, for the 2-node check; 0: no check
  std::vector<double> node_speedups = {1, 16, 64};
  int bucket_kb = 0;  // 0: DataParallel's default
};

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      const size_t n = std::strlen(name);
      return a.compare(0, n, name) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char* v = value("--iterations="))
      o->iterations = std::atoi(v);
    else if (const char* v = value("--repeats="))
      o->repeats = std::atoi(v);
    else if (const char* v = value("--threads="))
      o->threads = std::atoi(v);
    else if (const char* v = value("--link-gbit="))
      o->link_gbit = std::atof(v);
    else if (const char* v = value("--node-speedups=")) {
      o->node_speedups.clear();
      for (const char* p = v; *p;) {
        o->node_speedups.push_back(std::atof(p));
        p = std::strchr(p, ',');
        if (!p) break;
        ++p;
      }
    } else if (const char* v = value("--bucket-kb="))
      o->bucket_kb = std::atoi(v);
    else if (a[0] != '-' && o->net.empty())
      o->net = a;
    else
      return false;
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
// `after_iteration` (optional) runs after each iteration's update.
Status Train(Net& net, int iterations, std::vector<double>* hook_times,
             Clock::time_point* backward_start, Timing* t,
             const std::function<Status()>& after_iteration = nullptr) {
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
    if (after_iteration) DT_RETURN_IF_ERROR(after_iteration());
  }
  t->forward /= iterations;
  t->backward /= iterations;
  t->update /= iterations;
  for (double& d : t->layer_done) d /= iterations;
  return Status::Ok();
}

Status Measure(const Options& o, Communicator& communicator);

Status Run(const Options& o) {
  DT_ASSIGN_OR_RETURN(std::unique_ptr<Communicator> comm, CreateCommunicator());
  if (comm->size() < 2) return InvalidArgument("run it under mpirun with 2 or more ranks");
  const Status status = Measure(o, *comm);
  if (!status.ok()) {  // the other ranks would wait for this one forever
    std::fprintf(stderr, "dtrain_sync_bench: rank %d: %s\n", comm->rank(),
                 status.message().c_str());
    comm->Abort(1);
  }
  return status;
}

Status Measure(const Options& o, Communicator& communicator) {
  Communicator* comm = &communicator;
  openblas_set_num_threads(o.threads);
  omp_set_num_threads(o.threads);
  const bool leader = comm->rank() == 0;
  SetLogToStderr(false);  // the net's construction log; this prints a report
  NetParameter param;
  DT_RETURN_IF_ERROR(ReadTextProto(o.net, &param));
  // A solver around the net, for the Trainer that attaches the exchange as `dtrain train` does;
  // the iterations below run forward, backward and a plain update themselves.
  SolverParameter solver_param;
  *solver_param.mutable_net_param() = param;
  solver_param.set_base_lr(1e-6f);
  solver_param.set_lr_policy("fixed");
  solver_param.set_max_iter(0);
  solver_param.set_random_seed(1701);
  DT_ASSIGN_OR_RETURN(std::unique_ptr<Solver> solver, CreateSolver(solver_param));
  Net* net = &solver->net();

  // Backward's progress: when each layer's backward finished, after backward started; and the
  // wall-clock end of backward, comparable between ranks on one machine.
  std::vector<double> hook_times(net->layers().size(), 0);
  Clock::time_point backward_start;
  double backward_end = 0;
  net->AddBackwardHook([&](int layer) {
    hook_times[layer] = Since(backward_start);
    if (layer == 0) {
      backward_end =
          std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
              .count();
    }
  });

  Timing alone;
  DT_RETURN_IF_ERROR(Train(*net, 1, &hook_times, &backward_start, &alone));  // warm-up
  DT_RETURN_IF_ERROR(Train(*net, o.iterations, &hook_times, &backward_start, &alone));

  TrainerOptions options;
  if (o.bucket_kb > 0) options.buckets.bucket_bytes = static_cast<size_t>(o.bucket_kb) << 10;
  options.who = "rank " + std::to_string(comm->rank());
  Trainer trainer(*solver, *comm, options);
  DataParallel& data_parallel = trainer.exchange();
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
  const double raw_s = Best(raw), bucketed_s = Best(bucketed);

  // (2) training with the exchange overlapping backward. What is not hidden is the time the
  // training thread waits for the sums after its backward (measured directly; the difference
  // of two iteration times would drown in their noise). That the exchange's own CPU work slows
  // compute shows in the iteration times.
  // The wait also holds the time the slowest rank's backward ended after this one's (ranks on
  // a shared 2-core machine drift by a few percent): that part is load imbalance, not exposed
  // communication, and is taken out (the ranks share this machine's clock).
  Timing synced;
  data_parallel.TakeWaitSeconds();
  double waited_s = 0, exposed_s = 0;
  const auto after_iteration = [&]() -> Status {
    const double wait = data_parallel.TakeWaitSeconds();
    std::vector<double> ends(static_cast<size_t>(comm->size()), 0.0);
    ends[comm->rank()] = backward_end;
    DT_RETURN_IF_ERROR(comm->AllreduceSum(ends.data(), comm->size()));
    const double late = *std::max_element(ends.begin(), ends.end()) - backward_end;
    waited_s += wait / o.iterations;
    exposed_s += std::max(0.0, wait - late) / o.iterations;
    return Status::Ok();
  };
  DT_RETURN_IF_ERROR(
      Train(*net, o.iterations, &hook_times, &backward_start, &synced, after_iteration));
  DT_RETURN_IF_ERROR(data_parallel.status());
  const double alone_s = alone.forward + alone.backward + alone.update;
  const double synced_s = synced.forward + synced.backward + synced.update;
  const double hidden = std::clamp(1.0 - exposed_s / bucketed_s, 0.0, 1.0);

  // (3) the scaling model, from the profile measured alone.
  IterationProfile profile;
  profile.forward_seconds = alone.forward;
  profile.backward_seconds = alone.backward;
  profile.update_seconds = alone.update;
  for (const DataParallel::BucketInfo& b : data_parallel.bucket_plan()) {
    profile.buckets.push_back({b.bytes, alone.layer_done[b.ready_after_layer]});
  }
  if (!leader) return Status::Ok();
  const double mb = bytes / 1e6;
  std::printf(
      "net %s: %.2fM parameters (%.1f MB of gradients) in %zu bucket(s), %d rank(s), "
      "%d thread(s) each\n",
      o.net.c_str(), floats / 1e6, mb, profile.buckets.size(), comm->size(), o.threads);
  std::printf(
      "allreduce of all gradients: raw %.4f s (%.0f MB/s), bucketed %.4f s (%.0f MB/s): "
      "bucketed reaches %.2f of raw\n",
      raw_s, mb / raw_s, bucketed_s, mb / bucketed_s, raw_s / bucketed_s);
  std::printf(
      "iteration alone %.4f s (forward %.4f, backward %.4f, update %.4f); with the "
      "exchange %.4f s (%+.1f%%), of which %.4f s waiting for the sums after backward, "
      "%.4f s of it for the communication itself (the rest: the other rank's backward "
      "ending later): %.0f%% of the %.4f s of communication hidden behind backward\n",
      alone_s, alone.forward, alone.backward, alone.update, synced_s,
      100 * (synced_s / alone_s - 1), waited_s, exposed_s, 100 * hidden, bucketed_s);
  double projected_2 = 0;
  if (o.link_gbit > 0) {
    // The emulated link: its nominal rate, and the rate the raw allreduce reached on it (what
    // the model's ring formula implies from raw_s), with the namespaces' latency (~30 us).
    const int n = comm->size();
    const double reached = 2.0 * (n - 1) / n * bytes / raw_s;
    const double nominal_s = ProjectIterationSeconds(profile, n, {o.link_gbit * 125e6, 30e-6});
    projected_2 = ProjectIterationSeconds(profile, n, {reached, 30e-6});
    std::printf(
        "model check, %d nodes: measured iteration %.4f s; projected %.4f s (%+.0f%%) "
        "with the allreduce rate measured on the link (%.0f MB/s), %.4f s (%+.0f%%) with "
        "its nominal %.3g Gbit/s\n",
        n, synced_s, projected_2, 100 * (projected_2 / synced_s - 1), reached / 1e6, nominal_s,
        100 * (nominal_s / synced_s - 1), o.link_gbit);
  }
  const LinkModel links[] = {{25e9 / 8, 15e-6}, {100e9 / 8, 10e-6}};
  const char* link_names[] = {"25 Gbit/s", "100 Gbit/s"};
  const int nodes[] = {8, 32, 128};
  std::printf(
      "projected weak-scaling efficiency (ring allreduce; latency 15 us at 25 Gbit/s, "
      "10 us at 100 Gbit/s):\n");
  std::printf("| node | link | 8 nodes | 32 nodes | 128 nodes |\n|---|---|---|---|---|\n");
  std::string json_table;
  for (double speedup : o.node_speedups) {
    IterationProfile p = profile;  // a node `speedup` times faster than this rank
    p.forward_seconds /= speedup;
    p.backward_seconds /= speedup;
    p.update_seconds /= speedup;
    for (auto& b : p.buckets) b.ready_seconds /= speedup;
    for (int l = 0; l < 2; ++l) {
      std::printf("| %gx this rank (%.3f s/iter) | %s |", speedup,
                  ProjectIterationSeconds(p, 1, links[l]), link_names[l]);
      for (int n : nodes) {
        const double e = ProjectEfficiency(p, n, links[l]);
        std::printf(" %.1f%% |", 100 * e);
        char cell[96];
        std::snprintf(cell, sizeof(cell), "%s\"%gx|%s|%d\":%.4f", json_table.empty() ? "" : ",",
                      speedup, link_names[l], n, e);
        json_table += cell;
      }
      std::printf("\n");
    }
  }
  std::printf(
      "JSON {\"net\":\"%s\",\"ranks\":%d,\"bytes\":%.0f,\"buckets\":%zu,\"raw_s\":%.6f,"
      "\"bucketed_s\":%.6f,\"alone_s\":%.6f,\"synced_s\":%.6f,\"exposed_s\":%.6f,\"hidden\":%.4f,"
      "\"projected_2_s\":%.6f,\"efficiency\":{%s}}\n",
      o.net.c_str(), comm->size(), bytes, profile.buckets.size(), raw_s, bucketed_s, alone_s,
      synced_s, exposed_s, hidden, projected_2, json_table.c_str());
  return Status::Ok();
}

}  // namespace
}  // namespace dtrain

int main(int argc, char** argv) {
  dtrain::Options options;
  if (!dtrain::ParseOptions(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: dtrain_sync_bench NET.prototxt [--iterations=3] [--repeats=5] "
                 "[--threads=1] [--link-gbit=G] [--node-speedups=1,16,64] [--bucket-kb=N]\n");
    return 2;
  }
  const dtrain::Status status = dtrain::Run(options);
  if (!status.ok()) {
    std::fprintf(stderr, "dtrain_sync_bench: %s\n", status.message().c_str());
    return 1;
  }
  return 0;
}
