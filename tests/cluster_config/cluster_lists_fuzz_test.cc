// The cluster parsers' fuzz target (fuzz/cluster_lists_fuzz_target.h) on random and mutated input,
// in every test run; scripts/fuzz.sh runs it under libFuzzer with sanitizers.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "fuzz/cluster_lists_fuzz_target.h"

namespace dtrain {
namespace {

TEST(ClusterListsFuzzTest, RandomAndMutatedInputKeepTheInvariants) {
  const std::vector<std::string> valid = {
      "node[01-04,07],login",
      "a[1-2]-b[3-4]",
      "2(x3),1",
      "4",
      "q-st-c5n18xlarge-[1-16]",
      R"({"Reservations":[{"Instances":[{"InstanceId":"i-1","State":{"Name":"running"},)"
      R"("PrivateIpAddress":"10.0.0.1","Tags":[{"Key":"k","Value":"v"}]}]}]})"};
  const std::string alphabet = "n[]-,0123456789(x) {}\":";
  std::mt19937 rng(6);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes;
    if (i % 2 == 0) {  // short strings over the lists' own characters
      for (int n = rng() % 24; n > 0; --n) bytes += alphabet[rng() % alphabet.size()];
    } else {  // a valid input with a few characters changed, cut short or doubled
      bytes = valid[rng() % valid.size()];
      for (int flips = 1 + rng() % 3; flips > 0; --flips) {
        bytes[rng() % bytes.size()] = alphabet[rng() % alphabet.size()];
      }
      if (rng() % 3 == 0) bytes.resize(rng() % bytes.size());
      if (rng() % 5 == 0) bytes += "," + bytes;
    }
    FuzzClusterLists(bytes);
  }
}

}  // namespace
}  // namespace dtrain
