// A data layer fed by a data server against the same layer reading the LMDB the server serves:
// the check the tests of the layers that parse stored records (AnnotatedData, BoxData) run on a
// tcp:// source (data/served_record_source.h). Failures are gtest failures in the caller.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "layers/sharded_source.h"
#include "proto/net.pb.h"
#include "testing/layer_test_util.h"

namespace dtrain::testing {

// Builds the layer of `param` twice, its data_param.source set to `lmdb` and to `uri`, in `phase`
// with `seed`, each as shard `index` of `count` (set after Setup, as the Trainer sets it), and runs
// `batches` Forwards of both: every top must have the same shape and values. Half-way, the saved
// states must be the same text, and a fresh served layer restored from it must give the
// remaining batches exactly.
inline void ExpectServedLayerMatchesLmdb(const LayerParameter& param, const std::string& lmdb,
                                         const std::string& uri, Phase phase, uint64_t seed,
                                         int index, int count, int batches) {
  SCOPED_TRACE("shard " + std::to_string(index) + " of " + std::to_string(count));
  const size_t tops = static_cast<size_t>(param.top_size());
  auto make = [&](const std::string& source, std::vector<Tensor>* tensors, TensorVec* top) {
    LayerParameter p = param;
    p.mutable_data_param()->set_source(source);
    LayerPtr layer = MakeLayer(p, phase, seed);
    tensors->resize(tops);
    top->clear();
    for (Tensor& t : *tensors) top->push_back(&t);
    if (!layer) return layer;
    const Status set_up = layer->Setup({}, *top);
    EXPECT_TRUE(set_up.ok()) << source << ": " << set_up.message();
    if (!set_up.ok()) return LayerPtr();
    dynamic_cast<ShardedSource*>(layer.get())->SetShard(index, count);
    return layer;
  };
  std::vector<Tensor> a_tensors, b_tensors;
  TensorVec a, b;
  LayerPtr local = make(lmdb, &a_tensors, &a);
  LayerPtr served = make(uri, &b_tensors, &b);
  ASSERT_TRUE(local && served);
  const int half = batches / 2;
  std::string state;
  std::vector<std::vector<std::vector<float>>> expected;  // batches half.., each top's values
  for (int k = 0; k < batches; ++k) {
    if (k == half) {
      state = served->SaveState();
      EXPECT_EQ(state, local->SaveState());
    }
    Status s = local->Forward({}, a, nullptr);
    ASSERT_TRUE(s.ok()) << s.message();
    s = served->Forward({}, b, nullptr);
    ASSERT_TRUE(s.ok()) << s.message();
    if (k >= half) expected.emplace_back();
    for (size_t t = 0; t < tops; ++t) {
      ASSERT_EQ(a[t]->shape(), b[t]->shape()) << "batch " << k << " top " << t;
      ASSERT_EQ(Values(*a[t]), Values(*b[t])) << "batch " << k << " top " << t;
      if (k >= half) expected.back().push_back(Values(*a[t]));
    }
  }
  std::vector<Tensor> c_tensors;
  TensorVec c;
  LayerPtr resumed = make(uri, &c_tensors, &c);
  ASSERT_TRUE(resumed);
  const Status restored = resumed->RestoreState(state);
  ASSERT_TRUE(restored.ok()) << restored.message();
  for (int k = half; k < batches; ++k) {
    const Status s = resumed->Forward({}, c, nullptr);
    ASSERT_TRUE(s.ok()) << s.message();
    for (size_t t = 0; t < tops; ++t) {
      EXPECT_EQ(Values(*c[t]), expected[k - half][t]) << "resumed, batch " << k << " top " << t;
    }
  }
}

}  // namespace dtrain::testing
