#include "solver/divergence.h"

#include <cmath>
#include <sstream>

#include "solver/element_loops.h"

namespace dtrain {
namespace {

// The index of the first non-finite value of `values`, or -1.
int64_t FirstNonFiniteIndex(const float* values, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if (!std::isfinite(values[i])) return i;
  }
  return -1;
}

// Whether any of `values` is not finite or exceeds kDivergedMagnitude, in one vectorised pass
// (solver/element_loops.h): it runs at every display; the offending value is then found by a
// plain loop.
bool AnyDiverged(const float* values, int64_t count) {
  int diverged = 0;
#pragma omp parallel for simd schedule(static) \
    reduction(|                                \
              : diverged) if (parallel         \
                              : count >= kThreadedUpdateElements)
  for (int64_t k = 0; k < count; ++k) diverged |= !(std::fabs(values[k]) <= kDivergedMagnitude);
  return diverged != 0;
}

std::string LayerName(const Net& net, size_t i) {
  return "layer '" + net.layer_names()[i] + "' (" + net.layers()[i]->type() + ")";
}

std::string ValueText(float value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

std::string FirstNonFinite(const Net& net) {
  const auto& layers = net.layers();
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto& params = layers[i]->blobs();
    for (size_t p = 0; p < params.size(); ++p) {
      if (FirstNonFiniteIndex(params[p]->data(), params[p]->count()) >= 0) {
        return LayerName(net, i) + " parameter " + std::to_string(p);
      }
    }
    for (size_t t = 0; t < net.top_vecs()[i].size(); ++t) {
      const Tensor* top = net.top_vecs()[i][t];
      if (FirstNonFiniteIndex(top->data(), top->count()) >= 0) {
        const bool data = net.bottom_vecs()[i].empty();
        return LayerName(net, i) + " top '" + net.blob_names()[net.top_ids()[i][t]] + "'" +
               (data ? " (data)" : "");
      }
    }
  }
  for (size_t i = layers.size(); i-- > 0;) {
    for (size_t t = 0; t < net.top_vecs()[i].size(); ++t) {
      const Tensor* top = net.top_vecs()[i][t];
      if (FirstNonFiniteIndex(top->diff(), top->count()) >= 0) {
        return LayerName(net, i) + " gradient of top '" + net.blob_names()[net.top_ids()[i][t]] +
               "'";
      }
    }
    const auto& params = layers[i]->blobs();
    for (size_t p = 0; p < params.size(); ++p) {
      if (FirstNonFiniteIndex(params[p]->diff(), params[p]->count()) >= 0) {
        return LayerName(net, i) + " gradient of parameter " + std::to_string(p);
      }
    }
  }
  return "";
}

std::string DivergedWeights(const Net& net) {
  const auto& layers = net.layers();
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto& params = layers[i]->blobs();
    for (size_t p = 0; p < params.size(); ++p) {
      const float* values = params[p]->data();
      if (!AnyDiverged(values, params[p]->count())) continue;
      for (int64_t k = 0; k < params[p]->count(); ++k) {
        if (!std::isfinite(values[k]) || std::fabs(values[k]) > kDivergedMagnitude) {
          return LayerName(net, i) + " parameter " + std::to_string(p) + " holds " +
                 ValueText(values[k]);
        }
      }
    }
  }
  return "";
}

}  // namespace dtrain
