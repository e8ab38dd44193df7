#include "testing/tiny_solver.h"

#include <gtest/gtest.h>

#include "core/proto_io.h"

namespace dtrain::testing {

SolverParameter TinySolver(const std::string& fields) {
  SolverParameter param;
  const Status parsed = ParseTextProto(
      "base_lr: 0.1 lr_policy: 'fixed' display: 0 random_seed: 3 " + fields +
          " net_param { "
          "layer { name: 'data' type: 'DummyData' top: 'data' top: 'label' "
          "  dummy_data_param { shape { dim: 4 dim: 3 } shape { dim: 4 } "
          "    data_filler { type: 'gaussian' } data_filler { type: 'constant' value: 1 } } } "
          "layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'ip' "
          "  inner_product_param { num_output: 2 weight_filler { type: 'xavier' } } } "
          "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip' bottom: 'label' "
          "  top: 'loss' } }",
      "solver", &param);
  EXPECT_TRUE(parsed.ok()) << parsed.message();
  return param;
}

}  // namespace dtrain::testing
