#include "cli/net_state_flags.h"

namespace dtrain {

FlagSpec StageFlag() {
  return {"stage", "the net's stages (comma-separated), as Caffe's tools take them"};
}

FlagSpec LevelFlag() { return {"level", "the net's level, as Caffe's tools take it", false, "0"}; }

StatusOr<NetState> NetStateFromFlags(const Flags& flags, Phase phase) {
  NetState state;
  state.set_phase(phase);
  DT_ASSIGN_OR_RETURN(const int level, flags.GetInt("level"));
  state.set_level(level);
  const std::string stages = flags.Get("stage");
  if (!flags.Has("stage")) return state;
  size_t start = 0;
  while (true) {
    const size_t comma = stages.find(',', start);
    const std::string stage = stages.substr(start, comma - start);
    if (stage.empty()) {
      return InvalidArgument("--stage=" + stages + " has an empty stage name");
    }
    state.add_stage(stage);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return state;
}

}  // namespace dtrain
