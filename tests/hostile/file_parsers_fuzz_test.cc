// The file parsers' fuzz target (fuzz/file_parsers_fuzz_target.h) on random and mutated input
// in every test run: a valid file of each kind with bytes flipped, cut short or doubled, and
// random bytes. scripts/fuzz.sh runs the same target under libFuzzer with ASan and UBSan.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "fuzz/file_parsers_fuzz_target.h"

namespace dtrain {
namespace {

// One valid file per parser, in the target's order.
std::vector<std::string> ValidFiles() {
  NetParameter net;
  LayerParameter* layer = net.add_layer();
  layer->set_name("fc");
  layer->set_type("InnerProduct");
  BlobProto* blob = layer->add_blobs();
  blob->mutable_shape()->add_dim(2);
  blob->mutable_shape()->add_dim(3);
  for (int i = 0; i < 6; ++i) blob->add_data(0.5f * i);
  SealWithChecksum(&net);
  SolverState state;
  state.set_iter(7);
  *state.add_history() = *blob;
  SealWithChecksum(&state);
  Datum datum;
  datum.set_channels(1);
  datum.set_height(2);
  datum.set_width(2);
  datum.set_data(std::string("\x01\x02\x03\x04", 4));
  datum.set_label(3);
  std::string idx(
      "\x00\x00\x08\x03\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x02\x05\x06\x07\x08", 20);
  std::string cifar(1 + 3072, '\x07');
  return {
      "name: 'n' layer { name: 'a' type: 'ReLU' bottom: 'x' top: 'x' }\n"
      "layers { name: 'b' type: CONVOLUTION blobs_lr: 1 convolution_param { num_output: 2 } }",
      "net: 'n.prototxt' base_lr: 0.1 lr_policy: 'step' stepsize: 10 solver_type: ADAM",
      net.SerializeAsString(),
      state.SerializeAsString(),
      blob->SerializeAsString(),
      datum.SerializeAsString(),
      idx,
      cifar,
      "a.jpg 1\nb c.png 2\n",
      "# 0\na.jpg\n3 10 10\n2\n1 0.9 0 0 5 5\n0 0.1 2 2 9 9\n",
      "master slots=2\n10.0.0.7\nnode-1 slots=4 # comment\n"};
}

TEST(FileParsersFuzzTest, RandomAndMutatedInputKeepTheInvariants) {
  const std::vector<std::string> valid = ValidFiles();
  ASSERT_EQ(static_cast<int>(valid.size()), kFileParsers);
  std::mt19937 rng(14);
  for (int i = 0; i < 12000; ++i) {
    const int parser = i % kFileParsers;
    std::string bytes;
    if (i % 7 == 0) {  // random bytes
      for (int n = rng() % 64; n > 0; --n) bytes += static_cast<char>(rng());
    } else {  // a valid file with bytes changed, cut short or doubled
      bytes = valid[parser];
      for (int flips = 1 + rng() % 4; flips > 0; --flips) {
        bytes[rng() % bytes.size()] = static_cast<char>(rng());
      }
      if (rng() % 3 == 0) bytes.resize(rng() % bytes.size());
      if (rng() % 5 == 0) bytes += bytes;
    }
    FuzzFileParsers(std::string(1, static_cast<char>(parser)) + bytes);
  }
}

}  // namespace
}  // namespace dtrain
