#include "testing/net_training.h"

#include <gtest/gtest.h>

#include <cmath>

namespace dtrain::testing {

std::pair<float, float> TrainWithPlainSgd(Net& net, int iterations, float lr) {
  float first = 0.f, last = 0.f;
  for (int iter = 0; iter < iterations; ++iter) {
    StatusOr<float> loss = net.Forward();
    EXPECT_TRUE(loss.ok()) << loss.status().message();
    if (!loss.ok()) break;
    EXPECT_TRUE(std::isfinite(*loss)) << "iteration " << iter;
    if (!std::isfinite(*loss)) break;
    if (iter == 0) first = *loss;
    last = *loss;
    net.ClearParamDiffs();
    net.Backward();
    for (Tensor* param : net.learnable_params()) {
      for (int64_t i = 0; i < param->count(); ++i)
        param->mutable_data()[i] -= lr * param->diff()[i];
    }
  }
  return {first, last};
}

}  // namespace dtrain::testing
