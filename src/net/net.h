// Net: a graph of Layers over named Tensors, built from a NetParameter for one phase.
//
// Build steps (Caffe's): legacy inputs → Input layer, phase/stage/level filtering, split
// insertion, then each layer is created from the registry, wired to its bottoms (which must be
// produced by an earlier layer) and tops (new tensors, or the bottom itself when a top reuses a
// bottom's name: in-place), set up, and its learnable parameters registered with their ParamSpec
// (lr_mult, decay_mult, and `name` for sharing one tensor between layers). Which layers and
// bottoms need a backward pass is decided once from loss weights, lr_mult, propagate_down and
// force_backward.
//
// The Net owns its layers and tensors. Forward/Backward run layer by layer on the caller's
// thread; an after-backward hook is called with each layer's index as soon as that layer's
// backward is done (gradient sync attaches here). Tensors take memory on first use (core/tensor.h),
// so the net's needs (Memory()) are checked against the machine's before its first Forward.
// Not thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/proto_forward.h"
#include "core/status.h"
#include "core/tensor.h"
#include "layers/layer.h"

namespace dtrain {

// How the layers of a weights file met a net's, by name.
struct WeightsMatch {
  std::vector<std::string> copied;  // layers of the net whose parameters were copied
  // Layers of the file that no layer of the net is named after: those that hold parameters
  // (weights that went unused), and those that hold none (data, loss and activation layers).
  std::vector<std::string> ignored_with_params, ignored_without_params;
};

// The bytes a net's tensors take once it has run forward and backward; a storage shared by
// several tensors (in-place layers, shared diff buffers, shared parameters) counts once.
struct NetMemory {
  int64_t activations = 0;  // blob data
  int64_t gradients = 0;    // the blob diffs that backward writes or a loss weight primes
  int64_t parameters = 0;   // learnable parameters, data and diff
  int64_t total() const { return activations + gradients + parameters; }
};

class Net {
 public:
  using BackwardHook = std::function<void(int layer_index)>;

  // `seed` seeds every layer's own random stream (fillers, dropout, data order).
  // `forced_engine` (the --engine flag), when not empty, is the engine of every layer.
  static StatusOr<std::unique_ptr<Net>> Create(const NetParameter& param, const NetState& state,
                                               uint64_t seed,
                                               const std::string& forced_engine = "");

  // Runs every layer's forward; returns the total weighted loss.
  StatusOr<float> Forward();
  // Layers start..end (indices, both included) alone, as Forward runs them (pycaffe's
  // forward(start=, end=)); returns their weighted loss.
  StatusOr<float> ForwardFromTo(int start, int end);
  // Primes every loss top's diff with its loss weight, then runs backward from the last layer to
  // the first, calling the hooks after each layer.
  void Backward();
  // Layers start down to end (indices, both included), with hooks, priming nothing: the caller
  // has set the diffs of layer start's tops.
  void BackwardFromTo(int start, int end);
  // The first failure of the backward passes since the last call, naming its layer (only layers
  // running the user's code fail there: Layer::TakeBackwardError); Ok when none failed. Callers
  // of Backward, BackwardFromTo and BackwardLayer check it right after.
  Status TakeBackwardError();
  // Layer i's backward alone, as Backward runs it (no hooks): for `dtrain time`.
  void BackwardLayer(int i);
  // Zeroes the diff of every learnable parameter (before each iteration's backward).
  void ClearParamDiffs();
  void AddBackwardHook(BackwardHook hook) { backward_hooks_.push_back(std::move(hook)); }

  // Copies parameters from a trained net (a .caffemodel), matching layers by name as Caffe does.
  // Layers absent from `trained` keep their values; a shape mismatch is an error naming the layer
  // and both shapes. `match`, when given, gets what met and what did not. A BatchNorm stored as
  // Intel Caffe writes it with the Scale it merged (5 or 4 blobs, no Scale layer) gives blobs
  // 0-2 to the BatchNorm and the rest to that Scale (net/intel_batch_norm.h).
  Status CopyTrainedLayersFrom(const NetParameter& trained, WeightsMatch* match = nullptr);
  // Makes this net's parameters alias `other`'s for every layer with the same name (the test net
  // shares the train net's weights).
  Status ShareTrainedLayersWith(const Net& other);
  // Writes layers and their parameters, as a .caffemodel holds them.
  void ToProto(NetParameter* param, bool write_diff = false) const;

  const std::string& name() const { return name_; }
  // Known once built; Create refuses a net that needs more than this machine's memory.
  NetMemory Memory() const;
  Phase phase() const { return phase_; }
  const std::vector<std::unique_ptr<Layer>>& layers() const { return layers_; }
  const std::vector<std::string>& layer_names() const { return layer_names_; }
  const std::vector<TensorVec>& bottom_vecs() const { return bottom_vecs_; }
  const std::vector<TensorVec>& top_vecs() const { return top_vecs_; }
  const std::vector<std::vector<int>>& top_ids() const { return top_id_vecs_; }
  const std::vector<std::vector<int>>& bottom_ids() const { return bottom_id_vecs_; }
  bool layer_need_backward(int i) const { return layer_need_backward_[i]; }
  const std::vector<bool>& bottom_need_backward(int i) const { return bottom_need_backward_[i]; }

  const std::vector<std::string>& blob_names() const { return blob_names_; }
  Tensor* blob_by_name(const std::string& name) const;
  Layer* layer_by_name(const std::string& name) const;
  // Blobs no layer consumes, in creation order (the scores a test prints).
  const std::vector<int>& output_blob_indices() const { return output_blob_indices_; }
  Tensor* blob(int index) const { return blobs_[index].get(); }
  float blob_loss_weight(int index) const { return blob_loss_weights_[index]; }

  // Unique learnable tensors (shared ones listed once, at their first owner), with their
  // per-tensor learning-rate and decay multipliers.
  const std::vector<Tensor*>& learnable_params() const { return learnable_params_; }
  const std::vector<float>& params_lr() const { return params_lr_; }
  const std::vector<float>& params_weight_decay() const { return params_weight_decay_; }
  // For each layer, the indices into learnable_params() of the tensors it owns (the gradient
  // sync buckets from these in the order backward finishes layers).
  const std::vector<std::vector<int>>& layer_learnable_param_ids() const {
    return layer_learnable_param_ids_;
  }
  // Human-readable parameter names ("conv1[0]") for logs and errors.
  const std::vector<std::string>& learnable_param_names() const { return learnable_param_names_; }

 private:
  Net() = default;
  Status Init(const NetParameter& param, const NetState& state, uint64_t seed,
              const std::string& forced_engine);
  Status AppendLayer(const LayerParameter& lp, int layer_index, uint64_t seed,
                     const std::string& engine, std::map<std::string, int>* available_blobs);
  Status AppendParams(int layer_index);
  void DecideBackward(bool force_backward);
  Status FuseLayers();
  void FindLaterOverwrites();
  void ShareDiffBuffers();

  std::string name_;
  Phase phase_ = Phase{};  // TRAIN until Init
  // Kernel scratch shared by the layers (declared before them: it outlives their kernels).
  std::unique_ptr<Scratch> scratch_ = std::make_unique<Scratch>();
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<std::string> layer_names_;
  std::vector<std::shared_ptr<Tensor>> blobs_;
  std::vector<std::string> blob_names_;
  std::vector<float> blob_loss_weights_;
  std::vector<TensorVec> bottom_vecs_, top_vecs_;
  std::vector<std::vector<int>> bottom_id_vecs_, top_id_vecs_;
  std::vector<std::vector<bool>> bottom_need_backward_;
  std::vector<bool> layer_need_backward_;
  // Per layer: the blobs of shared diff buffers whose diff it writes first in backward, so that
  // what the buffer holds before (another blob's, in any layout) is dropped, never converted.
  std::vector<std::vector<int>> diffs_first_written_by_;
  std::vector<bool> blob_need_backward_;
  std::vector<int> output_blob_indices_;

  std::vector<Tensor*> learnable_params_;
  std::vector<float> params_lr_, params_weight_decay_;
  std::vector<std::string> learnable_param_names_;
  std::vector<std::vector<int>> layer_learnable_param_ids_;
  std::map<std::string, int> shared_param_owner_;  // ParamSpec name -> learnable index
  // BatchNorm name -> the Scale Intel Caffe merges into it (net/intel_batch_norm.h).
  std::map<std::string, std::string> merged_scales_;
  bool IsMergedBatchNorm(const Layer& target, int source_blobs) const;

  std::vector<BackwardHook> backward_hooks_;
};

}  // namespace dtrain
