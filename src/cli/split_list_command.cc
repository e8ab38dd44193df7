// dtrain split-list: one image list per worker, for ImageData layers whose source names a
// per-rank list (`source: "train_%#.txt"`), the ImageNet workflow of docs/distributed.md.
#include "cli/command.h"
#include "data/image_list.h"
#include "distributed/rank_job.h"

namespace dtrain {
namespace {

Status RunSplitList(const Flags& flags) {
  const auto& args = flags.positional();
  if (args.size() != 2) {
    return InvalidArgument("usage: dtrain split-list --workers=N LIST OUT_PATTERN");
  }
  if (!flags.Has("workers")) {
    return InvalidArgument("split-list needs --workers=N, the number of per-worker lists");
  }
  DT_ASSIGN_OR_RETURN(const int workers, flags.GetInt("workers"));
  if (workers < 1) return InvalidArgument("--workers must be at least 1");
  DT_ASSIGN_OR_RETURN(const int seed, flags.GetInt("seed"));
  const std::string& pattern = args[1];
  if (pattern.find("%#") == std::string::npos) {
    return InvalidArgument("OUT_PATTERN '" + pattern +
                           "' has no %# (the worker index), e.g. train_%#_of_%*.txt");
  }
  std::vector<std::string> out_paths;
  for (int k = 0; k < workers; ++k) out_paths.push_back(ExpandRankPattern(pattern, k, workers));
  return SplitImageList(args[0], out_paths, static_cast<uint64_t>(seed),
                        !flags.GetBool("no-shuffle"));
}

}  // namespace

Command SplitListCommand() {
  return {"split-list",
          "split an image list into balanced per-worker lists (%# in OUT_PATTERN: worker index, "
          "%*: worker count)",
          "--workers=N LIST OUT_PATTERN",
          {{"workers", "number of per-worker lists"},
           {"seed", "seed of the shuffle", false, "1"},
           {"no-shuffle", "keep list order (worker k gets lines k, k+N, ...)", true}},
          RunSplitList};
}

}  // namespace dtrain
