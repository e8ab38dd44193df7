// Shared by the commands that run a net (train, test, time, check): read a net prototxt and
// build it for a phase, optionally loading weights; report the engine choices.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "net/net.h"

namespace dtrain {

// `engine` (the --engine flag) forces one engine on every layer when not empty.
StatusOr<std::unique_ptr<Net>> LoadNetForPhase(const std::string& model_path, Phase phase,
                                               const std::string& weights_path,
                                               const std::string& engine);

// Logs which implementation each layer runs and why others declined (the --verbose view), or,
// when !verbose, one summary line counting layers per implementation.
void LogEngineChoices(const Net& net, bool verbose);

}  // namespace dtrain
