#include "python/tensor_views.h"

namespace dtrain::python {

namespace {

template <typename Visit>
void ForEachTensor(const std::vector<Net*>& nets, Visit visit) {
  for (Net* net : nets) {
    for (size_t i = 0; i < net->blob_names().size(); ++i) visit(net->blob(static_cast<int>(i)));
    for (const auto& layer : net->layers()) {
      for (const auto& param : layer->blobs()) visit(param.get());
    }
  }
}

}  // namespace

void ClaimPlainValues(const std::vector<Net*>& nets, bool diffs) {
  ForEachTensor(nets, [diffs](Tensor* t) {
    if (t->count() == 0) return;
    t->mutable_data();
    if (diffs) t->mutable_diff();
  });
}

void PublishPlainValues(const std::vector<Net*>& nets, bool diffs) {
  ForEachTensor(nets, [diffs](Tensor* t) {
    if (t->count() == 0) return;
    const Tensor& values = *t;
    values.data();
    if (diffs) values.diff();
  });
}

}  // namespace dtrain::python
