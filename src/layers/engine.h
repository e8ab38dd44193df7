// Engine: which implementation computes a layer, and the ordered choice between them.
//
// Layers with a fast kernel keep an ordered implementation list: oneDNN first, the reference
// kernel (the oracle, always able) last. The engine a layer asks for comes from, in order of
// precedence: the --engine flag (forces every layer), the layer's own `engine` field, Caffe's
// per-type `engine: CAFFE` (= reference), the net's `engine` field. ANY lets the list decide.
// A oneDNN kernel that cannot take a configuration declines with a reason; the choice and the
// reasons are kept in a one-line report that verbose mode prints. Layers prepare oneDNN's backward
// pass in every phase, since Caffe runs backward in TEST nets too (force_backward). Stateless.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "core/status.h"
#include "proto/net.pb.h"

namespace dtrain {

enum class Engine { kAny, kOnednn, kReference };

// "" or "ANY" -> kAny; "ONEDNN"/"MKLDNN"/"MKL2017" -> kOnednn; "REFERENCE"/"CAFFE" -> kReference.
// Case-insensitive. Anything else is an error naming the accepted values.
StatusOr<Engine> ParseEngine(const std::string& name);
const char* EngineName(Engine engine);

// The engine name a layer asks for (see the precedence above); `forced` is the --engine flag.
std::string ResolveEngineName(const LayerParameter& layer, const std::string& net_default,
                              const std::string& forced);

// Runs a layer's implementation list: `create_onednn()` returns the oneDNN kernel or a Status
// saying why it declines. Returns that kernel, or nullptr when the reference kernel is to run.
// A declined kernel is an error only when the engine forces oneDNN. `report` gets the choice.
template <typename Kernel, typename CreateOnednn>
StatusOr<std::unique_ptr<Kernel>> ChooseKernel(Engine engine, CreateOnednn create_onednn,
                                               std::string* report) {
  if (engine == Engine::kReference) {
    *report = "reference (engine REFERENCE requested)";
    return std::unique_ptr<Kernel>();
  }
  StatusOr<std::unique_ptr<Kernel>> kernel = create_onednn();
  if (kernel.ok()) {
    *report = "onednn " + (*kernel)->implementation();
    return kernel;
  }
  if (engine == Engine::kOnednn) {
    return Unsupported("engine ONEDNN requested, but oneDNN declines: " +
                       kernel.status().message());
  }
  *report = "reference (onednn declined: " + kernel.status().message() + ")";
  return std::unique_ptr<Kernel>();
}

// A layer's choice for its current problem (shapes and settings): the oneDNN kernel, or none
// when the reference kernel runs. The list runs again only when the problem changes, so that a
// steady-state Reshape costs one comparison.
template <typename Kernel, typename Problem>
class KernelChoice {
 public:
  // Null: the reference kernel runs.
  Kernel* fast() const { return kernel_.get(); }

  // Returns whether the list ran (the problem was new).
  template <typename CreateOnednn>
  StatusOr<bool> Update(Engine engine, const Problem& problem, CreateOnednn create_onednn,
                        std::string* report) {
    if (chosen_ && problem == problem_) return false;
    StatusOr<std::unique_ptr<Kernel>> kernel = ChooseKernel<Kernel>(engine, create_onednn, report);
    if (!kernel.ok()) return kernel.status();
    kernel_ = std::move(kernel).value();
    problem_ = problem;
    chosen_ = true;
    return true;
  }

 private:
  std::unique_ptr<Kernel> kernel_;
  Problem problem_{};
  bool chosen_ = false;
};

}  // namespace dtrain
