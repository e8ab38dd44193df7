#include "launch/per_worker_files.h"

#include <filesystem>
#include <vector>

#include "cluster/job_command_line.h"
#include "core/logging.h"
#include "core/proto_io.h"
#include "data/image_list.h"
#include "distributed/rank_job.h"
#include "layers/layer_inputs.h"
#include "net/read_net.h"
#include "proto/solver.pb.h"
#include "solver/upgrade_solver.h"

namespace dtrain {
namespace {

// A layer name as a file name: "/" and blanks become "_".
std::string FileStem(std::string name) {
  for (char& c : name) {
    if (c == '/' || c == ' ' || c == '\t') c = '_';
  }
  return name;
}

std::string RankFile(const std::string& dir, const std::string& stem, int rank,
                     const std::string& extension) {
  return (std::filesystem::path(dir) / (stem + "_" + std::to_string(rank) + extension)).string();
}

}  // namespace

StatusOr<std::string> WritePerWorkerFiles(const std::string& solver_path, int ranks,
                                          const std::string& dir, uint64_t seed) {
  if (ranks < 1) return InvalidArgument("per-worker files need at least one rank");
  DT_ASSIGN_OR_RETURN(const SolverParameter solver, ReadSolverParameter(solver_path));
  if (solver.has_train_net() || solver.has_train_net_param()) {
    return Unsupported("--per-worker-files handles solvers with `net` or `net_param`; '" +
                       solver_path + "' uses train_net");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return IoError("cannot create '" + dir + "': " + ec.message());

  // The shards of every ImageData list that is common to all ranks (no %#), split once.
  NetParameter net;
  if (solver.has_net_param()) {
    net = solver.net_param();
  } else if (solver.net().find("%#") == std::string::npos) {
    DT_ASSIGN_OR_RETURN(net, ReadNetParameter(solver.net()));
  }
  std::vector<std::string> split_layers;
  for (const LayerParameter& layer : net.layer()) {
    const LayerInputs in = InputsOfLayer(layer);
    if (in.format != RecordsFormat::kImageList) continue;
    const std::string& list = in.records;
    if (list.find("%#") != std::string::npos) continue;
    std::vector<std::string> shards;
    for (int r = 0; r < ranks; ++r)
      shards.push_back(RankFile(dir, FileStem(layer.name()), r, ".txt"));
    for (const std::string& shard : shards) std::filesystem::remove(shard, ec);
    DT_RETURN_IF_ERROR(SplitImageList(list, shards, seed, /*shuffle=*/true));
    split_layers.push_back(layer.name());
  }

  for (int rank = 0; rank < ranks; ++rank) {
    SolverParameter mine = solver;
    std::set<std::string> per_rank_layers;
    DT_RETURN_IF_ERROR(ExpandRankPatterns(&mine, rank, ranks, &per_rank_layers));
    DT_RETURN_IF_ERROR(InlineNetFiles(&mine));  // the rank's net file, when it has not been
    for (LayerParameter& layer : *mine.mutable_net_param()->mutable_layer()) {
      for (const std::string& name : split_layers) {
        if (layer.name() == name && InputsOfLayer(layer).format == RecordsFormat::kImageList) {
          DT_RETURN_IF_ERROR(
              SetRecordsOfLayer(&layer, RankFile(dir, FileStem(name), rank, ".txt")));
        }
      }
    }
    const std::string net_file = RankFile(dir, "net", rank, ".prototxt");
    DT_RETURN_IF_ERROR(WriteTextProtoAtomically(net_file, mine.net_param()));
    mine.clear_net_param();
    mine.set_net(net_file);
    DT_RETURN_IF_ERROR(WriteTextProtoAtomically(RankFile(dir, "solver", rank, ".prototxt"), mine));
  }
  return (std::filesystem::path(dir) / "solver_%#.prototxt").string();
}

StatusOr<std::vector<std::string>> JobWithPerWorkerFiles(const std::vector<std::string>& job,
                                                         int ranks, const std::string& dir,
                                                         uint64_t seed) {
  JobCommandLine line = JobCommandLine::ParseCommand(job);
  const std::string solver = line.ValueOr("solver");
  if (solver.empty()) return InvalidArgument("--per-worker-files needs the job's --solver=S");
  const std::string where =
      dir.empty() ? (std::filesystem::path(solver).parent_path() / "per_worker").string() : dir;
  DT_ASSIGN_OR_RETURN(const std::string pattern, WritePerWorkerFiles(solver, ranks, where, seed));
  line.Replace("solver", pattern);
  DT_LOG(INFO) << "launch: per-worker solver, net and list files for " << ranks << " ranks in "
               << where;
  return line.words();
}

}  // namespace dtrain
