// An op's ordered implementation list, and the choice it makes for one problem.
//
// Every heavy op (kernels/<op>.h) states its problem (shapes and settings) and its kernel
// interface, which neither implementation owns, and keeps one list (kernels/<op>.cc): fastest
// first, the reference, which takes every problem, last. Choosing runs the list in order; the
// first implementation that accepts the problem builds the kernel, one that does not declines
// with a reason. Each entry serves an engine and belongs to a family, the code it is (oneDNN's
// primitives, dtrain's blocked loops, the reference); the choice is kept in a one-line report,
// the engine then the family where they differ, that verbose mode prints:
//
//   "onednn jit:avx2"                                     the first entry took it
//   "onednn blocked nChw8c"                               dtrain's blocked loops, for oneDNN
//   "reference (onednn declined: the argmax top ...)"     an earlier entry declined
//   "reference (engine REFERENCE requested)"              the caller asked for that engine
//
// An engine the caller asks for (not kAny) restricts the list to the entries serving it (an
// engine may hold a specialised one before its general one), and their decline is then an
// error. A test may force one entry by its family (kernels/listed_implementations.h), so that
// an entry listed after another of its engine is tested too.
//
// A kernel takes float32 buffers in the layouts it names (layouts(): plain NCHW unless it says
// otherwise); the layer passes its tensors in them (core/tensor.h converts only where a
// neighbour holds them in another). The interface is an object, not a function, so that a kernel
// keeps its primitives and its saved state for backward between calls (docs/architecture.md,
// "Layouts"). Not thread-safe.
#pragma once

#include <cctype>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/scratch.h"
#include "core/status.h"
#include "core/tensor_layout.h"
#include "kernels/engine.h"
#include "kernels/listed_implementations.h"

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

// One entry of an op's list. An entry serves an engine (what the model's `engine:` or --engine=
// selects) and belongs to a family (the code it is); the report and the tests name the family.
template <typename Interface, typename Problem>
struct Implementation {
  Engine engine;       // the engine it serves
  const char* family;  // unique in its list: "onednn" (oneDNN's primitives), "blocked" (dtrain's
                       // loops on oneDNN's channel-blocked layout), "reference"
  const char* title;   // in errors: "oneDNN", "dtrain's blocked loops", "the reference"
  StatusOr<std::unique_ptr<Interface>> (*create)(const Problem&, const KernelRequest&);
};

// An engine's name as reports begin with it: EngineName in lower case ("onednn", "reference").
inline std::string EngineReportName(Engine engine) {
  std::string name = EngineName(engine);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

// The report's name of an entry: the engine it serves, then its family where that differs
// ("onednn", "onednn blocked", "reference").
template <typename Entry>
std::string EntryReportName(const Entry& entry) {
  const std::string engine = EngineReportName(entry.engine);
  return entry.family == engine ? engine : engine + " " + entry.family;
}

// An op's ordered list (kernels/<op>.cc holds one, named after its op: "BatchNorm"). It registers
// its entries with kernels/listed_implementations.h, so that tests can name and force each.
template <typename Interface, typename Problem>
class KernelList {
 public:
  using Entry = Implementation<Interface, Problem>;

  KernelList(const char* op, std::initializer_list<Entry> entries) : op_(op), entries_(entries) {
    std::vector<ListedImplementation> listed;
    for (const Entry& entry : entries_) listed.push_back({entry.engine, entry.family, entry.title});
    RegisterListedImplementations(op, std::move(listed));
  }

  // Runs the list for `problem` as the header describes; `report` gets the choice.
  StatusOr<std::unique_ptr<Interface>> Choose(const Problem& problem, const KernelRequest& request,
                                              std::string* report) const {
    const std::string forced_family = ForcedFamily(op_);
    if (!forced_family.empty() && !ServesAnotherEngine(forced_family, request.engine)) {
      return ChooseForced(forced_family, problem, request, report);
    }
    const bool forced = request.engine != Engine::kAny;
    std::vector<std::pair<Engine, std::string>> declines;  // each entry that declined, and why
    std::string forced_decline;
    for (const Entry& entry : entries_) {
      if (forced && entry.engine != request.engine) continue;
      StatusOr<std::unique_ptr<Interface>> kernel = entry.create(problem, request);
      if (!kernel.ok()) {
        // Forced, the error names the engine's last entry (its general kernel) and why it
        // declined.
        forced_decline = std::string("engine ") + EngineName(request.engine) + " requested, but " +
                         entry.title + " declines: " + kernel.status().message();
        declines.emplace_back(
            entry.engine, std::string(entry.family) + " declined: " + kernel.status().message());
        continue;
      }
      *report = Named(entry, **kernel);
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
    for (const auto& decline : declines) {
      declined += (declined.empty() ? "" : "; ") + decline.second;
    }
    return Unsupported("every implementation declines: " + declined);
  }

 private:
  static std::string Named(const Entry& entry, const Interface& kernel) {
    const std::string implementation = kernel.implementation();
    return EntryReportName(entry) + (implementation.empty() ? "" : " " + implementation);
  }

  // Whether `family`'s entry serves an engine other than the one asked for: a forced entry
  // leaves the choices made for another engine (a test's reference layers) as they are.
  bool ServesAnotherEngine(const std::string& family, Engine engine) const {
    if (engine == Engine::kAny) return false;
    for (const Entry& entry : entries_) {
      if (family == entry.family) return entry.engine != engine;
    }
    return false;
  }

  // A test's ScopedForcedImplementation: only that entry runs, and its decline is an error.
  StatusOr<std::unique_ptr<Interface>> ChooseForced(const std::string& family,
                                                    const Problem& problem,
                                                    const KernelRequest& request,
                                                    std::string* report) const {
    std::string families;
    for (const Entry& entry : entries_) {
      families += (families.empty() ? "" : ", ") + std::string(entry.family);
      if (family != entry.family) continue;
      StatusOr<std::unique_ptr<Interface>> kernel = entry.create(problem, request);
      if (!kernel.ok()) {
        NoteForcedOutcome(op_, kernel.status().message());
        return Unsupported(std::string("implementation ") + entry.family + " of " + op_ +
                           " forced, but " + entry.title +
                           " declines: " + kernel.status().message());
      }
      NoteForcedOutcome(op_, "");
      *report = Named(entry, **kernel) + " (" + entry.family + " forced)";
      return kernel;
    }
    return InvalidArgument("implementation " + family + " of " + op_ +
                           " forced, but its list holds " + families);
  }

  const char* op_;
  std::vector<Entry> entries_;
};

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
