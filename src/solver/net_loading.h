// Shared by the commands that run a net (train, test, time, check): read a net prototxt and
// build it for a phase, load weights into it (--weights, --weights-strict); report the engine
// choices.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "net/net.h"

namespace dtrain {

// `state` is the phase, with any stages and level (Caffe's --stage, --level). `engine` (the
// --engine flag) forces one engine on every layer when not empty. `weights` is LoadWeights' list
// (empty: none). An error building the net says the state it was built for.
StatusOr<std::unique_ptr<Net>> LoadNetForPhase(const std::string& model_path, const NetState& state,
                                               const std::string& weights, bool weights_strict,
                                               const std::string& engine);

// "phase TEST, stages 'a', 'b', level 1" (stages and level only where set), for errors.
std::string DescribeNetState(const NetState& state);

// Copies the .caffemodel files of `list` (comma-separated, as Caffe's --weights) into `net`,
// layer by layer by name, later files over earlier ones, as Caffe does; then says what did not
// match: a warning for every layer of a file that the net has no layer of that name for and that
// holds parameters, one line listing such layers without parameters, and a warning for every
// layer of the net with parameters that no file initialised. With `strict` (--weights-strict)
// either kind of parameter mismatch is an error naming them all.
Status LoadWeights(const std::string& list, bool strict, Net* net);

// Logs which implementation each layer runs and why others declined (the --verbose view), or,
// when !verbose, one summary line counting layers per implementation.
void LogEngineChoices(const Net& net, bool verbose);

}  // namespace dtrain
