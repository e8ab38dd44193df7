#include "kernels/listed_implementations.h"

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "core/check.h"

namespace dtrain::kernels {
namespace {

std::map<std::string, std::vector<ListedImplementation>>& Lists() {
  static std::map<std::string, std::vector<ListedImplementation>> lists;
  return lists;
}

struct Forced {
  std::string family;
  int accepted = 0, declined = 0;
  std::string last_decline;
};

std::mutex& ForcedMutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<std::string, Forced>& ForcedByOp() {
  static std::map<std::string, Forced> forced;
  return forced;
}

// How many ops are forced now: lets every choice outside such tests skip the lock.
std::atomic<int> forced_count{0};

}  // namespace

void RegisterListedImplementations(const char* op, std::vector<ListedImplementation> entries) {
  std::set<std::string> families;
  for (const ListedImplementation& entry : entries) DT_CHECK(families.insert(entry.family).second);
  DT_CHECK(Lists().emplace(op, std::move(entries)).second);
}

std::vector<ListedImplementation> ListedImplementations(const std::string& op) {
  auto it = Lists().find(op);
  return it == Lists().end() ? std::vector<ListedImplementation>{} : it->second;
}

std::vector<std::string> ListedOps() {
  std::vector<std::string> ops;
  for (const auto& [op, entries] : Lists()) ops.push_back(op);
  return ops;
}

ScopedForcedImplementation::ScopedForcedImplementation(std::string op, std::string family)
    : op_(std::move(op)) {
  std::lock_guard<std::mutex> lock(ForcedMutex());
  Forced forced;
  forced.family = std::move(family);
  DT_CHECK(ForcedByOp().emplace(op_, std::move(forced)).second);
  ++forced_count;
}

ScopedForcedImplementation::~ScopedForcedImplementation() {
  std::lock_guard<std::mutex> lock(ForcedMutex());
  ForcedByOp().erase(op_);
  --forced_count;
}

int ScopedForcedImplementation::accepted() const {
  std::lock_guard<std::mutex> lock(ForcedMutex());
  return ForcedByOp().at(op_).accepted;
}

int ScopedForcedImplementation::declined() const {
  std::lock_guard<std::mutex> lock(ForcedMutex());
  return ForcedByOp().at(op_).declined;
}

std::string ScopedForcedImplementation::last_decline() const {
  std::lock_guard<std::mutex> lock(ForcedMutex());
  return ForcedByOp().at(op_).last_decline;
}

std::string ForcedFamily(const char* op) {
  if (forced_count.load() == 0) return "";
  std::lock_guard<std::mutex> lock(ForcedMutex());
  auto it = ForcedByOp().find(op);
  return it == ForcedByOp().end() ? "" : it->second.family;
}

void NoteForcedOutcome(const char* op, const std::string& why) {
  std::lock_guard<std::mutex> lock(ForcedMutex());
  auto it = ForcedByOp().find(op);
  if (it == ForcedByOp().end()) return;
  if (why.empty()) {
    ++it->second.accepted;
  } else {
    ++it->second.declined;
    it->second.last_decline = why;
  }
}

}  // namespace dtrain::kernels
