#include "dist/data_parallel.h"

#include <algorithm>

namespace dtrain {

DataParallel::DataParallel(Communicator& communicator, Net& net)
    : communicator_(communicator), net_(net) {
  int64_t total = 0;
  for (const Tensor* p : net_.learnable_params()) total += p->count();
  buffer_.resize(static_cast<size_t>(total));
  if (communicator_.size() > 1) {
    net_.AddBackwardHook([this](int layer_index) {
      if (layer_index == 0) AverageGradients();
    });
  }
}

Status DataParallel::BroadcastParameters() {
  for (Tensor* p : net_.learnable_params()) {
    DT_RETURN_IF_ERROR(communicator_.Broadcast(p->mutable_data(), p->count(), 0)
                           .WithContext("broadcasting the parameters from rank 0"));
  }
  return Status::Ok();
}

void DataParallel::AverageGradients() {
  if (!status_.ok()) return;
  float* packed = buffer_.data();
  for (const Tensor* p : net_.learnable_params()) {
    packed = std::copy(p->diff(), p->diff() + p->count(), packed);
  }
  status_ = communicator_.AllreduceSum(buffer_.data(), static_cast<int64_t>(buffer_.size()))
                .WithContext("summing the gradients over ranks");
  if (!status_.ok()) return;
  const float scale = 1.f / static_cast<float>(communicator_.size());
  const float* from = buffer_.data();
  for (Tensor* p : net_.learnable_params()) {
    float* diff = p->mutable_diff();
    for (int64_t i = 0; i < p->count(); ++i) diff[i] = from[i] * scale;
    from += p->count();
  }
}

}  // namespace dtrain
