// Layer: Caffe's unit of computation, with Caffe's lifecycle.
//
//   Setup(bottom, top)    once, non-virtual: checks bottom/top counts, calls LayerSetUp (read
//                          parameters, create learnable `blobs`) then Reshape, and primes the
//                          diff of every top that carries a loss weight.
//   Forward(bottom, top)  each iteration: Reshape when a bottom's shape changed since the last
//                          one (always for layers without bottoms), then ForwardImpl; returns
//                          the weighted loss of this layer's tops.
//   Backward(top, propagate_down, bottom)
//                          writes bottom diffs (where propagate_down[i]) and accumulates
//                          parameter diffs (the net zeroes them before each iteration).
//
// A layer owns its learnable parameters (`blobs()`, Caffe's name) through shared_ptr so that the
// net can share them between layers (`param { name: ... }`). Bottom and top tensors are owned by
// the net. Errors a user can cause (bad parameters, mismatched shapes, bad data) come back as a
// Status that the net prefixes with the layer's name; so does a tensor size Reshape refuses
// (core/tensor.h) or a failed allocation during Setup or Forward. Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/proto_forward.h"
#include "core/rng.h"
#include "core/scratch.h"
#include "core/status.h"
#include "core/tensor.h"
#include "kernels/kernel_list.h"
#include "layers/engine.h"

namespace dtrain {

using TensorVec = std::vector<Tensor*>;

// What a layer needs from its surroundings; passed in, never global.
struct LayerContext {
  Phase phase = Phase{};       // TRAIN (Phase's first value, 0; checked in layer.cc)
  uint64_t seed = 1701;        // the layer's own random stream (fillers, dropout, data order)
  std::string engine;          // the engine asked for (layers/engine.h); "" lets the list choose
  Scratch* scratch = nullptr;  // the net's per-call kernel scratch (null: kernels keep their own)
};

class Layer {
 public:
  // Keeps a copy of `param`.
  Layer(const LayerParameter& param, const LayerContext& context);
  virtual ~Layer();
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  Status Setup(const TensorVec& bottom, const TensorVec& top);
  Status Forward(const TensorVec& bottom, const TensorVec& top, float* loss);
  void Backward(const TensorVec& top, const std::vector<bool>& propagate_down,
                const TensorVec& bottom) {
    if (!absorbed_) BackwardImpl(top, propagate_down, bottom);
  }
  virtual Status Reshape(const TensorVec& bottom, const TensorVec& top) = 0;
  // Backward returns nothing: a C++ layer's backward pass cannot fail on what a user gives it. A
  // layer running the user's own code (Python) keeps the failure of a backward pass here instead,
  // and the net's callers collect it right after the pass (Net::TakeBackwardError).
  Status TakeBackwardError() { return std::exchange(backward_error_, Status::Ok()); }

  virtual const char* type() const = 0;
  const LayerParameter& layer_param() const { return param_; }
  const std::string& name() const;
  Phase phase() const { return phase_; }

  // Fusion. The net offers a layer each layer that runs in place on its only top right after it
  // (and then the next such one, while it accepts): Absorb says whether this layer takes `next`
  // over, computing next's output in its own forward pass and next's parameter gradients in its
  // backward pass, from the next Reshape on. The net then marks `next` absorbed: its Forward and
  // Backward do nothing. Default: takes nothing over.
  virtual bool Absorb(Layer& next) { return false; }
  void set_absorbed() { absorbed_ = true; }
  bool absorbed() const { return absorbed_; }

  // Which bottoms a later layer of the net overwrites in its forward pass (running in place on
  // the blob, or on another sharing its storage), so that a layer reading a bottom again in
  // Backward keeps a copy of its values only where they would not survive. Until the net says,
  // every bottom may be overwritten (a layer used on its own).
  void set_bottoms_overwritten_later(std::vector<bool> overwritten) {
    bottoms_overwritten_later_ = std::move(overwritten);
  }
  bool bottom_overwritten_later(int i) const {
    return i >= static_cast<int>(bottoms_overwritten_later_.size()) ||
           bottoms_overwritten_later_[i];
  }

  // Which implementation computes this layer and why the others declined ("" for layers that
  // have only one implementation).
  const std::string& engine_report() const { return engine_report_; }
  // Multiply-adds of one forward pass (x2 = FLOPs), for layers that count them (dtrain time).
  virtual double ForwardMacs() const { return 0; }

  std::vector<std::shared_ptr<Tensor>>& blobs() { return blobs_; }
  const std::vector<std::shared_ptr<Tensor>>& blobs() const { return blobs_; }
  float loss_weight(int top_index) const {
    return top_index < static_cast<int>(loss_weights_.size()) ? loss_weights_[top_index] : 0.f;
  }
  // Whether Backward should compute the diff of learnable parameter i.
  bool param_propagate_down(int i) const {
    return i < static_cast<int>(param_propagate_down_.size()) && param_propagate_down_[i];
  }
  void set_param_propagate_down(int i, bool value) {
    if (static_cast<int>(param_propagate_down_.size()) <= i)
      param_propagate_down_.resize(i + 1, true);
    param_propagate_down_[i] = value;
  }

  // Random stream and data position, saved in solver snapshots so that a resumed run continues
  // bit for bit. The default saves the layer's rng_; data layers add their read position.
  virtual std::string SaveState() const { return rng_.Serialize(); }
  virtual Status RestoreState(const std::string& state);

  // Bottom/top count constraints; -1 means "no constraint".
  virtual int ExactNumBottomBlobs() const { return -1; }
  virtual int MinBottomBlobs() const { return -1; }
  virtual int MaxBottomBlobs() const { return -1; }
  virtual int ExactNumTopBlobs() const { return -1; }
  virtual int MinTopBlobs() const { return -1; }
  virtual int MaxTopBlobs() const { return -1; }
  virtual bool EqualNumBottomTopBlobs() const { return false; }
  // Loss layers create their top automatically when the prototxt names none.
  virtual bool AutoTopBlobs() const { return false; }
  // A top that is a loss gets loss_weight 1 by default (loss layers say so here).
  virtual float DefaultLossWeight(int top_index) const { return 0.f; }
  // Whether force_backward may make this bottom receive a gradient (false for labels).
  virtual bool AllowForceBackward(int bottom_index) const { return true; }
  // Whether Backward can compute bottom diffs at all (false for Caffe's Threshold, whose backward
  // is not implemented): a net in which such a layer's bottom needs a gradient is an error.
  virtual bool HasGradient() const { return true; }
  // Whether blob i is a statistic the layer keeps itself (BatchNorm's mean, variance and factor):
  // never learned (the net gives it no learning rate or decay) and not counted as a parameter.
  virtual bool IsStatistic(int blob_index) const { return false; }
  // Whether Backward can compute this bottom's diff (false for inputs that Caffe refuses to
  // backpropagate to, e.g. Embed's indices or Filter's selector): the net treats a bottom without
  // a gradient that needs one as it treats HasGradient() false.
  virtual bool BottomHasGradient(int bottom_index) const { return HasGradient(); }

 protected:
  // Reads parameters, validates them, creates learnable blobs. Default: nothing to do.
  virtual Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) { return Status::Ok(); }
  virtual Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) = 0;
  virtual void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                            const TensorVec& bottom) = 0;

  // Points `choice` (a kernels::KernelChoice) at its op's kernel for `problem`; the op's list runs
  // only when the problem changed, and sets engine_report(). A decline that the engine makes an
  // error comes back naming this layer. Kernels prepare both passes in every phase, since Caffe
  // runs backward in TEST nets too (force_backward).
  template <typename Choice, typename Problem>
  Status UpdateKernel(Choice& choice, const Problem& problem) {
    StatusOr<bool> changed =
        choice.Update(problem, {engine_, /*training=*/true, scratch_}, &engine_report_);
    return changed.ok() ? Status::Ok() : Error(changed.status().message());
  }

  // Records the first failure of a backward pass until TakeBackwardError.
  void FailBackward(Status failure) {
    if (backward_error_.ok()) backward_error_ = std::move(failure);
  }
  // The engine name this layer was given, for layers that build inner layers.
  const std::string& engine_name() const { return engine_name_; }
  // "layer 'conv1' (Convolution): <message>"-style error for this layer.
  Status Error(const std::string& message) const;
  // `value` (a size field, or a dimension computed from one) as an int dimension: an error
  // naming `what` when it is above 2^31 - 1, or below 1 (below 0 when !positive).
  StatusOr<int> Dimension(const std::string& what, int64_t value, bool positive = true) const;

 private:
  // The copy of the parameters that param_ refers to, held by pointer so that this header needs
  // only LayerParameter's declaration (declared before param_, which is bound to it).
  std::unique_ptr<LayerParameter> own_param_;

 protected:
  // The layer's copy of its parameters (BatchNorm completes its param specs); a layer's .cc
  // includes "proto/net.pb.h" to read them.
  LayerParameter& param_;
  Phase phase_;
  Rng rng_;
  Engine engine_ = Engine::kAny;  // parsed in Setup from LayerContext::engine
  Scratch* scratch_ = nullptr;    // LayerContext::scratch, for the layer's kernels
  std::string engine_report_;
  std::vector<std::shared_ptr<Tensor>> blobs_;

 private:
  template <typename Body>
  Status Guarded(const char* stage, Body&& body);
  Status SetupUnguarded(const TensorVec& bottom, const TensorVec& top);
  Status ForwardUnguarded(const TensorVec& bottom, const TensorVec& top, float* loss);
  Status CheckBlobCounts(const TensorVec& bottom, const TensorVec& top) const;
  // Whether the bottoms have the shapes of the last Reshape (and records them if not).
  bool BottomShapesUnchanged(const TensorVec& bottom);

  std::string engine_name_;
  bool absorbed_ = false;
  std::vector<bool> bottoms_overwritten_later_;
  std::vector<std::vector<int>> reshaped_for_;  // bottom shapes of the last Reshape in Forward
  std::vector<bool> param_propagate_down_;
  std::vector<float> loss_weights_;
  Status backward_error_;
};

// For a Backward that, as Caffe's, computes no gradient for its bottoms from `first` on but lets
// the net ask for one (Fast R-CNN's SmoothL1Loss weights): those diffs become 0, the gradient
// they get, where Caffe leaves them as they were (0 as allocated, in the nets that do this).
void ZeroBottomDiffsFrom(size_t first, const std::vector<bool>& propagate_down,
                         const TensorVec& bottom);

}  // namespace dtrain
