// Telling that training has diverged, and where: the checks Solver::Step makes on the loss every
// iteration and on the weights at every display and before every snapshot, so that a diverged
// run stops naming the iteration and the first layer that went wrong, and never writes its
// weights to a snapshot.
//
// Weights count as diverged when a value is not finite or its magnitude exceeds
// kDivergedMagnitude: no trained net holds such a weight, and a run whose loss sits at a clamp
// (SoftmaxWithLoss's log of FLT_MIN) while its weights grow past 1e18 is only heading for
// infinity. Stateless functions over a built net.
#pragma once

#include <string>

#include "net/net.h"

namespace dtrain {

constexpr float kDivergedMagnitude = 1e18f;

// The first place, in forward order, where the net holds a non-finite value as its last Forward
// and Backward left it: a layer's parameters, then its tops; then, in backward order, the
// gradients of tops and parameters. "layer 'ip1' (InnerProduct) top 'ip1'"-style, with
// " (data)" when the layer reads data (it has no bottoms); empty when every value is finite.
std::string FirstNonFinite(const Net& net);

// The first learnable parameter that is not finite or exceeds kDivergedMagnitude, as
// "layer 'conv1' (Convolution) parameter 0 holds nan"; empty when every weight is sound.
std::string DivergedWeights(const Net& net);

}  // namespace dtrain
