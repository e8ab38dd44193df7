#include "solver/initial_weights.h"

namespace dtrain {

InitialWeights ChooseInitialWeights(const SolverParameter& solver, const std::string& weights_flag,
                                    const std::string& snapshot_flag) {
  InitialWeights choice;
  if (!snapshot_flag.empty()) return choice;  // the .solverstate's .caffemodel holds them
  if (!weights_flag.empty()) {
    choice.weights = weights_flag;
    if (solver.weights_size() > 0) choice.note = "--weights overrides the solver's weights";
    return choice;
  }
  for (const std::string& w : solver.weights()) {
    choice.weights += (choice.weights.empty() ? "" : ",") + w;
  }
  return choice;
}

}  // namespace dtrain
