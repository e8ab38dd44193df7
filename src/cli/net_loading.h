// Shared by the commands that run a single net (test, time, check): read a net prototxt and
// build it for a phase, optionally loading weights.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "net/net.h"

namespace dtrain {

StatusOr<std::unique_ptr<Net>> LoadNetForPhase(const std::string& model_path, Phase phase,
                                               const std::string& weights_path);

}  // namespace dtrain
