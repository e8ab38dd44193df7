// --stage and --level, as Caffe's tools take them (`caffe test --stage=a,b --level=1`): the
// NetState a net is built with besides its phase, which selects the layers whose include/exclude
// rules name stages or levels. Shared by check, test and time. Pure.
#pragma once

#include <string>

#include "cli/flags.h"
#include "core/status.h"
#include "proto/net.pb.h"

namespace dtrain {

// The two flags' specs, for a command's flag list.
FlagSpec StageFlag();
FlagSpec LevelFlag();

// `phase` with the stages of --stage (comma-separated; empty names are refused) and --level.
StatusOr<NetState> NetStateFromFlags(const Flags& flags, Phase phase);

}  // namespace dtrain
