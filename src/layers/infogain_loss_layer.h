// InfogainLossLayer: Caffe's infogain loss, a multinomial logistic loss of a softmax in which an
// infogain matrix H weighs every class's log-probability by the true label.
//
// Bottoms: scores (outer x C x inner around infogain_loss_param.axis, default 1), labels (outer *
// inner class indices in [0, C), any shape with that count), and optionally H (any shape with
// C * C values, row-major: H[label][class]). Without a third bottom H is read once, at setup, from
// the BlobProto file infogain_loss_param.source (a .binaryproto, as Caffe writes them). Tops: the
// loss, a scalar (shape {}), and optionally the softmax probabilities p (shaped like the scores,
// loss weight 0). With H = identity this is SoftmaxWithLoss (but clamped at 1e-20, not FLT_MIN):
//   loss = -sum_(o,i) sum_c H[label][c] log(max(p[o, c, i], 1e-20)) / normalizer
// over every location (o, i) whose label is not loss_param.ignore_label (when set). The normalizer
// (layers/loss_normalization.h) is loss_param.normalization (default VALID); the deprecated
// `normalize` is refused, as in Caffe. A label outside [0, C) is an error.
// Backward (scores only; labels and H never get a gradient): with w = top[0]'s diff (the loss
// weight, primed by the net) and r = sum_c H[label][c] (H's row sums),
//   dscores[o, c, i] = (p[o, c, i] r - H[label][c]) w / normalizer, 0 at ignored locations.
#pragma once

#include <memory>

#include "layers/layer.h"
#include "layers/softmax_layer.h"
#include "proto/layer_params.pb.h"

namespace dtrain {

class InfogainLossLayer : public Layer {
 public:
  InfogainLossLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "InfogainLoss"; }
  int MinBottomBlobs() const override { return 2; }
  int MaxBottomBlobs() const override { return 3; }
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 2; }
  bool AutoTopBlobs() const override { return true; }
  float DefaultLossWeight(int top_index) const override { return top_index == 0 ? 1.f : 0.f; }
  bool AllowForceBackward(int bottom_index) const override { return bottom_index == 0; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  bool Ignored(int label) const { return has_ignore_label_ && label == ignore_label_; }
  const Tensor& H(const TensorVec& bottom) const {
    return bottom.size() > 2 ? *bottom[2] : file_h_;
  }

  std::unique_ptr<SoftmaxLayer> softmax_;
  Tensor prob_;
  TensorVec softmax_bottom_, softmax_top_;  // the inner softmax's bottom and top (prob_)
  Tensor file_h_;                           // H read from infogain_loss_param.source
  std::vector<float> row_sums_;             // sum_c H[l][c], per label l
  bool has_ignore_label_ = false;
  int ignore_label_ = -1;
  LossParameter::NormalizationMode normalization_ = LossParameter::VALID;
  int64_t outer_ = 1, inner_ = 1;
  int channels_ = 1;
};

}  // namespace dtrain
