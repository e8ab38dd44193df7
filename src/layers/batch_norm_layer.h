// BatchNormLayer: normalises each channel to zero mean and unit variance, as Caffe's BatchNorm
// (no scale or shift of its own: a following Scale layer with bias_term adds them), or as Intel
// Caffe's MKL2017 / MKLDNN BatchNorm, with a learned scale and shift of its own, a ReLU after it
// and statistics over sub-batches. Which one a net's BatchNorm is, the net decides by Intel
// Caffe's rules (net/intel_batch_norm.h) and writes into the layer's parameters: on its own the
// layer is Caffe's unless use_weight_bias is set true explicitly.
//
// One bottom N x C x ... (1-D: C = 1), one top of the same shape; may run in place.
// y = (x - mean_c) / sqrt(var_c + eps), mean_c and var_c taken over N and the spatial axes.
// Parameters (batch_norm_param): use_global_stats (unset: true in TEST, false in TRAIN) uses the
// stored statistics instead of the batch's; moving_average_fraction f (default 0.999); eps (1e-5).
// Intel Caffe's: use_weight_bias set true: y = gamma_c * xhat + beta_c with gamma (filler,
// default constant 1) and beta (bias_filler, default constant 0; only with bias_term, default
// true, else beta = 0) learned; relu: y = max(y, 0), with its gradient; stats_batch_size s > 0
// with batch statistics: the batch splits into runs of s consecutive items, each normalised by
// its own statistics in both passes (ghost batch norm; s must divide the batch, as Intel's CHECK
// requires; the reference kernel computes it).
//
// Learnable blobs, exactly as Caffe stores them in a .caffemodel:
//   0  running mean sum, shape {C}
//   1  running unbiased variance sum, shape {C}
//   2  scale factor, shape {1}; the estimates are blob / factor (0 when the factor is 0)
//   3  gamma, shape {C}: only with use_weight_bias (Intel Caffe's order)
//   4  beta, shape {C}: only with use_weight_bias and bias_term
// Each batch-statistics Forward updates them: factor = f * factor + 1, mean = f * mean + batch
// mean, var = f * var + m / (m - 1) * batch var (m = elements per channel); with sub-batches
// once per sub-batch, in order, with its own statistics (m = elements per channel of one
// sub-batch), as Intel Caffe does. Blobs 0-2 are statistics, not trained: param_propagate_down
// is false for all three and their lr_mult is forced to 0. Gamma and beta are learned (their
// gradients are added to the blobs' diffs, summed over the sub-batches).
//
// Backward with batch statistics: dx = (dy - mean(dy) - mean(dy * y) * y) / sqrt(var + eps) per
// channel; with global statistics: dx = dy / sqrt(var + eps). Computed by the BatchNorm op's
// kernel (kernels/batch_norm.h); this layer keeps the running statistics.
//
// Fusion (Layer::Absorb): the layer takes over a Scale that runs in place on its top right after
// it with a learned per-channel scale (one bottom, axis 1, num_axes 1; with or without bias_term)
// and then a ReLU with negative_slope 0 (with or without the Scale before it), the way Caffe
// model files write BatchNorm + Scale + ReLU; one with a scale or a ReLU of its own takes only a
// ReLU (and, with its own ReLU, nothing). The kernel then computes relu(s * xhat + b) in one
// pass and, in backward, the Scale's gradients, which this layer adds to the Scale's blobs; the
// blobs stay the Scale's (snapshots and weight files are unchanged).
#pragma once

#include <vector>

#include "kernels/batch_norm.h"
#include "layers/absorbed_scale_relu.h"
#include "layers/layer.h"

namespace dtrain {

class BatchNormLayer : public Layer {
 public:
  BatchNormLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "BatchNorm"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  bool IsStatistic(int blob_index) const override { return blob_index < 3; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;
  bool Absorb(Layer& next) override;

  // For a layer that absorbs this one (a 1x1 Convolution before it, layers/convolution_layer.h):
  // whether it normalises with the batch's statistics, its eps, and the batch statistics that
  // layer computed (channels floats each), which update the running ones as Forward would.
  // Only a BatchNorm without Intel Caffe's own scale, ReLU or sub-batches can be absorbed so.
  bool batch_statistics() const {
    return !use_global_stats_ && !weight_bias_ && !relu_ && groups_ == 1;
  }
  float eps() const { return eps_; }
  void TakeBatchStatistics(const float* mean, const float* variance);

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  bool use_global_stats_ = false;
  float moving_average_fraction_ = 0.999f;
  float eps_ = 1e-5f;
  int channels_ = 1;
  int num_ = 1;          // shape(0)
  int64_t spatial_ = 1;  // count / (num * channels)
  // Intel Caffe's fields (the header): blobs 3 and 4, the ReLU, the sub-batches.
  bool weight_bias_ = false, bias_term_ = false, relu_ = false;
  int64_t stats_batch_size_ = 0;  // 0: the whole batch
  int64_t groups_ = 1;            // sub-batches of the current batch
  Status SetUpWeightBias();
  void ReadGlobalStats();
  void UpdateRunningStats();
  const float* scale() const;
  const float* shift() const;
  void AddWeightBiasDiffs();

  AbsorbedScaleRelu absorbed_;      // the Scale and ReLU this layer computes
  std::vector<float> unused_diff_;  // diff_src when the bottom needs none

  std::vector<float> zeros_;            // beta without bias_term
  std::vector<float> mean_, variance_;  // per sub-batch and channel, of the last Forward
  std::vector<float> kept_src_;         // the last Forward's bottom, in the kernel's layout
  bool keeps_src_ = true;               // false: Backward reads the bottom again instead
  kernels::KernelChoice<kernels::BatchNormKernel, kernels::BatchNormProblem> kernel_;
};

}  // namespace dtrain
