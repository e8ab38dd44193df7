// DummyDataLayer: tops filled by fillers, for tests and benchmarks that need data without a
// dataset.
//
// Bottoms: none. Tops: one or more. Shapes come from dummy_data_param.shape (one for all tops or
// one per top) or the legacy num/channels/height/width lists (each one value for all tops or one
// per top). data_filler gives 0 fillers (constant 0), one for all tops, or one per top. As in
// Caffe, a top with a constant filler is filled once at setup; any other filler refills its top on
// every Forward (from the layer's rng_), unless the dtrain field `refill: false` keeps the first
// draw for good (synthetic data in memory, for benchmarks).
#pragma once

#include "layers/layer.h"
#include "proto/filler.pb.h"

namespace dtrain {

class DummyDataLayer : public Layer {
 public:
  DummyDataLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "DummyData"; }
  int ExactNumBottomBlobs() const override { return 0; }
  int MinTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override { return Status::Ok(); }

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {}

 private:
  bool Refills(int top_index) const;
  // One filler for all tops, or one per top.
  std::vector<FillerParameter> fillers_;
  const FillerParameter& filler(size_t top_index) const {
    return fillers_[fillers_.size() > 1 ? top_index : 0];
  }
};

}  // namespace dtrain
