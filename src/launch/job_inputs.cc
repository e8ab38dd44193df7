#include "launch/job_inputs.h"

#include <algorithm>

#include "cluster/job_command_line.h"
#include "distributed/rank_job.h"
#include "layers/layer_inputs.h"
#include "net/net_filter.h"
#include "net/read_net.h"
#include "proto/solver.pb.h"
#include "solver/upgrade_solver.h"

namespace dtrain {
namespace {

void Add(std::vector<std::string>* paths, const std::string& path) {
  if (!path.empty() && std::find(paths->begin(), paths->end(), path) == paths->end()) {
    paths->push_back(path);
  }
}

void AddNetInputs(const NetParameter& net, int rank, int world, bool with_test,
                  std::vector<std::string>* paths) {
  NetState train;
  train.set_phase(TRAIN);
  for (const LayerParameter& layer : net.layer()) {
    // A layer the TRAIN phase drops is unused by a solver that does not test.
    if (!with_test && !StateKeepsLayer(train, layer)) continue;
    const LayerInputs in = InputsOfLayer(layer);
    if (in.format != RecordsFormat::kNone && in.format != RecordsFormat::kDataServer) {
      Add(paths, ExpandRankPattern(in.records, rank, world));
    }
    Add(paths, in.root_folder);
    for (const std::string& file : in.files) Add(paths, file);
  }
}

void AddNetFile(const std::string& path, int rank, int world, bool with_test,
                std::vector<std::string>* paths) {
  Add(paths, path);
  auto net = ReadNetParameter(path);
  if (net.ok()) AddNetInputs(*net, rank, world, with_test, paths);
}

}  // namespace

std::string JobFlagValue(const std::vector<std::string>& args, const std::string& name) {
  return JobCommandLine::ParseCommand(args).ValueOr(name);
}

std::vector<std::string> JobInputPaths(const std::vector<std::string>& job,
                                       const std::vector<int>& ranks, int world) {
  std::vector<std::string> paths;
  for (int rank : ranks) {
    for (const char* flag : {"weights", "snapshot"}) {
      Add(&paths, ExpandRankPattern(JobFlagValue(job, flag), rank, world));
    }
    const std::string model = JobFlagValue(job, "model");
    if (!model.empty()) AddNetFile(model, rank, world, /*with_test=*/true, &paths);
    const std::string solver_path = ExpandRankPattern(JobFlagValue(job, "solver"), rank, world);
    if (solver_path.empty()) continue;
    Add(&paths, solver_path);
    auto read = ReadSolverParameter(solver_path);
    if (!read.ok()) continue;
    const SolverParameter& solver = *read;
    // TEST-phase inputs count only when the solver tests.
    const bool tests = solver.test_iter_size() > 0;
    if (!solver.net().empty()) {
      AddNetFile(ExpandRankPattern(solver.net(), rank, world), rank, world, tests, &paths);
    }
    if (!solver.train_net().empty()) {
      AddNetFile(ExpandRankPattern(solver.train_net(), rank, world), rank, world, false, &paths);
    }
    for (const std::string& net : solver.test_net()) AddNetFile(net, rank, world, true, &paths);
    if (solver.has_net_param()) AddNetInputs(solver.net_param(), rank, world, tests, &paths);
    if (solver.has_train_net_param()) {
      AddNetInputs(solver.train_net_param(), rank, world, false, &paths);
    }
  }
  return paths;
}

std::vector<std::string> DataServerInputPaths(const std::vector<std::string>& args) {
  std::vector<std::string> paths;
  for (const char* flag : {"source", "solver", "auth-file"}) Add(&paths, JobFlagValue(args, flag));
  return paths;
}

}  // namespace dtrain
