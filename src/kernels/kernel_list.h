// An op's ordered implementation list, and the choice it makes for one problem.
//
// Every heavy op (kernels/<op>.h) states its problem (shapes and settings) and its kernel
// interface, which neither implementation owns, and keeps one list (kernels/<op>.cc): fastest
// first, the reference, which takes every problem, last. Choosing runs the list in order; the
// first implementation that accepts the problem builds the kernel, one that does not declines
// with a reason. The choice is kept in a one-line report that verbose mode prints:
//
//   "onednn jit:avx2"                                     the first entry took it
//   "reference (onednn declined: the argmax top ...)"     an earlier entry declined
//   "reference (engine REFERENCE requested)"              the caller asked for that engine
//
// An engine the caller asks for (not kAny) restricts the list to that engine's entries (an engine
// may hold a specialised one before its general one), and their decline is then an error. Adding
// an engine is one folder of kernels and one line per list.
//
// A kernel takes float32 buffers in the layouts it names (layouts(): plain NCHW unless it says
// otherwise); the layer passes its tensors in them (core/tensor.h converts only where a
// neighbour holds them in another). The interface is an object, not a function, so that a kernel
// keeps its primitives and its saved state for backward between calls (docs/architecture.md,
// "Layouts"). Not thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/scratch.h"
#include "core/status.h"
#include "core/tensor_layout.h"
#include "kernels/engine.h"

namespace dtrain::kernels {

// What a kernel is built for besides its problem.
struct KernelRequest {
  Engine engine = Engine::kAny;  // kAny: the list chooses
  bool training = true;          // also prepare the backward pass
  Scratch* scratch = nullptr;    // the net's per-call arena (null: the kernel keeps its own)
};

// The layouts of a kernel's main input (src, and diff_src) and output (dst, and diff_dst); null
// for plain. A kernel that may run in place names one layout for both.
struct KernelLayouts {
  LayoutPtr src, dst;
};

// What every kernel says about itself.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual KernelLayouts layouts() const { return {}; }
  // The implementation's own name for the code it runs ("jit:avx2"); "" when it has none.
  virtual std::string implementation() const { return ""; }
};

// One entry of an op's list: `create` builds the kernel or returns why it declines.
template <typename Interface, typename Problem>
struct Implementation {
  Engine engine;
  const char* name;   // in reports: "onednn", "reference"
  const char* title;  // in errors: "oneDNN", "the reference"
  StatusOr<std::unique_ptr<Interface>> (*create)(const Problem&, const KernelRequest&);
};

// Runs `list` for `problem` as the header describes; `report` gets the choice.
template <typename Interface, typename Problem, size_t N>
StatusOr<std::unique_ptr<Interface>> ChooseFrom(const Implementation<Interface, Problem> (&list)[N],
                                                const Problem& problem,
                                                const KernelRequest& request, std::string* report) {
  const bool forced = request.engine != Engine::kAny;
  std::vector<std::pair<Engine, std::string>> declines;  // each entry that declined, and why
  std::string forced_decline;
  for (const Implementation<Interface, Problem>& entry : list) {
    if (forced && entry.engine != request.engine) continue;
    StatusOr<std::unique_ptr<Interface>> kernel = entry.create(problem, request);
    if (!kernel.ok()) {
      // Forced, the error names the engine's last entry (its general kernel) and why it declined.
      forced_decline = std::string("engine ") + EngineName(request.engine) + " requested, but " +
                       entry.title + " declines: " + kernel.status().message();
      declines.emplace_back(entry.engine,
                            std::string(entry.name) + " declined: " + kernel.status().message());
      continue;
    }
    const std::string implementation = (*kernel)->implementation();
    *report = entry.name + (implementation.empty() ? "" : " " + implementation);
    // Another engine's declines say why this one runs (the same engine's, only which of its
    // kernels).
    std::string declined;
    for (const auto& [engine, why] : declines) {
      if (engine != entry.engine) declined += (declined.empty() ? "" : "; ") + why;
    }
    if (forced) {
      *report += std::string(" (engine ") + EngineName(request.engine) + " requested)";
    } else if (!declined.empty()) {
      *report += " (" + declined + ")";
    }
    return kernel;
  }
  if (!forced_decline.empty()) return Unsupported(forced_decline);
  if (forced) {
    return Unsupported(std::string("engine ") + EngineName(request.engine) +
                       " requested, but this operation has no implementation on it");
  }
  std::string declined;
  for (const auto& decline : declines) declined += (declined.empty() ? "" : "; ") + decline.second;
  return Unsupported("every implementation declines: " + declined);
}

// A layer's kernel for its current problem. The op's list (ChooseKernel, found next to the
// problem type in kernels/<op>.h) runs again only when the problem changes, so that a
// steady-state Reshape costs one comparison.
template <typename Interface, typename Problem>
class KernelChoice {
 public:
  Interface* operator->() const { return kernel_.get(); }
  Interface& operator*() const { return *kernel_; }

  // Returns whether the list ran (the problem was new).
  StatusOr<bool> Update(const Problem& problem, const KernelRequest& request, std::string* report) {
    if (kernel_ && problem == problem_) return false;
    StatusOr<std::unique_ptr<Interface>> kernel = ChooseKernel(problem, request, report);
    if (!kernel.ok()) return kernel.status();
    kernel_ = std::move(kernel).value();
    problem_ = problem;
    return true;
  }

 private:
  std::unique_ptr<Interface> kernel_;
  Problem problem_{};
};

// For an implementation's Create: its kernel as the op's interface.
template <typename Interface, typename Made>
StatusOr<std::unique_ptr<Interface>> AsInterface(StatusOr<std::unique_ptr<Made>> made) {
  if (!made.ok()) return made.status();
  return std::unique_ptr<Interface>(std::move(made).value());
}

}  // namespace dtrain::kernels
