// What each op's implementation list holds, by name, and the test hook that runs one named entry.
//
// Every list (kernels/<op>.cc, a KernelList of kernels/kernel_list.h) registers its op's name
// ("BatchNorm", "Convolution", ...) and its entries in order when the program starts, so that a
// test can enumerate them (ListedImplementations) and run each in turn: while a
// ScopedForcedImplementation(op, family) lives, that op's list runs only the entry of that family,
// whatever entries come before it, for every choice asking for any engine or the one that entry
// serves (choices for another engine, such as a test's reference layers, run as usual), and a
// decline of that entry is an error naming it (the scope counts both outcomes, so a harness can
// tell a decline from a failure). Production code never forces an entry. The registry is written
// only while the program starts; the forced entries are guarded by a mutex (one check of an atomic
// when none is forced).
#pragma once

#include <string>
#include <vector>

#include "kernels/engine.h"

namespace dtrain::kernels {

// One entry of an op's list as tests see it.
struct ListedImplementation {
  Engine engine;       // the engine it serves (what `engine:` and --engine= select)
  std::string family;  // the code it is, unique in its list: "onednn", "blocked", "reference"
  std::string title;   // in errors: "oneDNN", "dtrain's blocked loops", "the reference"
};

// Called by each list when the program starts; an op registers once, its families unique.
void RegisterListedImplementations(const char* op, std::vector<ListedImplementation> entries);
// The entries of `op`'s list in order; empty for an op with no list in this program.
std::vector<ListedImplementation> ListedImplementations(const std::string& op);
// The ops with a list in this program, sorted.
std::vector<std::string> ListedOps();

// Runs only `family`'s entry of `op`'s list while it lives (tests only; one scope per op at a
// time).
class ScopedForcedImplementation {
 public:
  ScopedForcedImplementation(std::string op, std::string family);
  ~ScopedForcedImplementation();
  ScopedForcedImplementation(const ScopedForcedImplementation&) = delete;
  ScopedForcedImplementation& operator=(const ScopedForcedImplementation&) = delete;

  // How often the forced entry built a kernel, and declined, since the scope began.
  int accepted() const;
  int declined() const;
  // Why it declined last ("" if it never did).
  std::string last_decline() const;

 private:
  std::string op_;
};

// For KernelList: the family forced for `op` ("" when none).
std::string ForcedFamily(const char* op);
// For KernelList: what the forced entry of `op` did (`why` empty when it built its kernel).
void NoteForcedOutcome(const char* op, const std::string& why);

}  // namespace dtrain::kernels
