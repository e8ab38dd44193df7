#include "layers/recurrent_layer.h"

#include <algorithm>
#include <string>

#include "core/filler.h"
#include "kernels/reference/gemm.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

using reference::Gemm;

RecurrentLayer::RecurrentLayer(const LayerParameter& p, const LayerContext& c)
    : Layer(p, c), expose_hidden_(p.recurrent_param().expose_hidden()) {}

Status RecurrentLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const RecurrentParameter& p = param_.recurrent_param();
  if (p.num_output() == 0) return Error("recurrent_param.num_output must be positive");
  DT_ASSIGN_OR_RETURN(H_, Dimension("recurrent_param.num_output", p.num_output()));
  const Tensor& x = *bottom[0];
  if (x.num_axes() < 2) {
    return Error("x (bottom 0) must have at least 2 axes (T, N, ...), got shape " +
                 x.ShapeString());
  }
  T_ = x.shape(0);
  N_ = x.shape(1);
  D_ = static_cast<int>(x.count(2));
  static_input_ = static_cast<int>(bottom.size()) > 2 + (expose_hidden_ ? NumStates() : 0);
  Ds_ = 0;
  if (static_input_) {
    if (bottom[2]->num_axes() < 1) {
      return Error("x_static (bottom 2) must have at least 1 axis (N, ...), got shape " +
                   bottom[2]->ShapeString());
    }
    Ds_ = static_cast<int>(bottom[2]->count(1));
  }
  carried_.assign(expose_hidden_ ? 0 : NumStates(), {});

  const std::vector<BlobSpec> specs = BlobSpecs();
  if (!blobs_.empty()) {
    if (blobs_.size() != specs.size()) {
      return Error("expected " + std::to_string(specs.size()) + " learnable blob(s), got " +
                   std::to_string(blobs_.size()));
    }
    for (size_t i = 0; i < specs.size(); ++i) {
      if (blobs_[i]->shape() != specs[i].shape) {
        return Error("incorrect shape of learnable blob " + std::to_string(i) + " (" +
                     specs[i].name + "): expected " + ShapeToString(specs[i].shape) + ", got " +
                     blobs_[i]->ShapeString());
      }
    }
    return Status::Ok();
  }
  for (const auto& [filler, what] : {std::pair{&p.weight_filler(), "weight_filler"},
                                     std::pair{&p.bias_filler(), "bias_filler"}}) {
    Status valid = ValidateFiller(*filler);
    if (!valid.ok()) {
      return Status(
          valid.code(),
          Error("recurrent_param." + std::string(what) + ": " + valid.message()).message());
    }
  }
  for (const BlobSpec& spec : specs) {
    blobs_.push_back(std::make_shared<Tensor>(spec.shape));
    DT_RETURN_IF_ERROR(
        Fill(spec.bias ? p.bias_filler() : p.weight_filler(), rng_, blobs_.back().get()));
  }
  return Status::Ok();
}

Status RecurrentLayer::CheckShapes(const TensorVec& bottom) const {
  const Tensor& x = *bottom[0];
  if (x.num_axes() < 2) {
    return Error("x (bottom 0) must have at least 2 axes (T, N, ...), got shape " +
                 x.ShapeString());
  }
  if (x.shape(0) != T_) {
    return Error("x (bottom 0) shape " + x.ShapeString() + " has " + std::to_string(x.shape(0)) +
                 " time steps, but the layer was set up for " + std::to_string(T_));
  }
  if (x.count(2) != D_) {
    return Error("x (bottom 0) shape " + x.ShapeString() + " has " + std::to_string(x.count(2)) +
                 " inputs per time step and stream (axes 2 on), but the weights expect " +
                 std::to_string(D_));
  }
  const int n = x.shape(1);
  const std::vector<int> cont_shape{T_, n};
  if (bottom[1]->shape() != cont_shape) {
    return Error("cont (bottom 1) must have shape (T, N) = " + ShapeToString(cont_shape) +
                 " of x (bottom 0) shape " + x.ShapeString() + ", got " + bottom[1]->ShapeString());
  }
  if (static_input_) {
    const Tensor& s = *bottom[2];
    if (s.num_axes() < 1 || s.shape(0) != n || s.count(1) != Ds_) {
      return Error("x_static (bottom 2) must have N = " + std::to_string(n) + " rows of " +
                   std::to_string(Ds_) + " values (shape (N, ...)), got shape " + s.ShapeString());
    }
  }
  if (expose_hidden_) {
    const std::vector<int> state_shape{1, n, H_};
    for (int k = 0; k < NumStates(); ++k) {
      const int b = 2 + static_input_ + k;
      if (bottom[b]->shape() != state_shape) {
        return Error(StateName(k) + " (bottom " + std::to_string(b) +
                     ") must have shape (1, N, num_output) = " + ShapeToString(state_shape) +
                     ", got " + bottom[b]->ShapeString());
      }
    }
  }
  return Status::Ok();
}

Status RecurrentLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  for (const Tensor* t : top) {
    for (const Tensor* b : bottom) {
      if (t == b) return Error("cannot run in place");
    }
  }
  DT_RETURN_IF_ERROR(CheckShapes(bottom));
  N_ = bottom[0]->shape(1);
  top[0]->Reshape({T_, N_, H_});
  for (size_t k = 1; k < top.size(); ++k) top[k]->Reshape({1, N_, H_});
  for (std::vector<float>& state : carried_) {
    // A carried state of another batch size means nothing: start from zeros, as Caffe does.
    if (state.size() != static_cast<size_t>(N_) * H_)
      state.assign(static_cast<size_t>(N_) * H_, 0.f);
  }
  static_pre_.resize(static_cast<size_t>(N_) * GateDim());
  dstatic_.resize(static_cast<size_t>(N_) * GateDim());
  ReshapeBuffers();
  return Status::Ok();
}

double RecurrentLayer::ForwardMacs() const {
  const double g = GateDim();
  return static_cast<double>(T_) * N_ * g * (D_ + H_) + static_cast<double>(N_) * g * Ds_ +
         ExtraMacs();
}

const float* RecurrentLayer::InitialState(const TensorVec& bottom, int k) const {
  if (expose_hidden_) return bottom[2 + static_input_ + k]->data();
  return carried_[k].data();
}

void RecurrentLayer::SaveFinalState(const float* state, int k, const TensorVec& top) {
  const size_t n = static_cast<size_t>(N_) * H_;
  float* out = expose_hidden_ ? top[1 + k]->mutable_data() : carried_[k].data();
  std::copy(state, state + n, out);
}

const float* RecurrentLayer::FinalStateDiff(const TensorVec& top, int k) const {
  return expose_hidden_ ? top[1 + k]->diff() : nullptr;
}

void RecurrentLayer::SetInitialStateDiff(const float* diff, int k,
                                         const std::vector<bool>& propagate_down,
                                         const TensorVec& bottom) const {
  const int b = 2 + static_input_ + k;
  if (!expose_hidden_ || !propagate_down[b]) return;
  std::copy(diff, diff + static_cast<size_t>(N_) * H_, bottom[b]->mutable_diff());
}

void RecurrentLayer::InputTransform(const TensorVec& bottom, float* pre) {
  const int g = GateDim();
  const int rows = T_ * N_;
  Gemm(false, true, rows, g, D_, 1.f, bottom[0]->data(), blobs_[0]->data(), 0.f, pre);
  const float* bias = blobs_[1]->data();
  for (int r = 0; r < rows; ++r) {
    float* row = pre + static_cast<size_t>(r) * g;
    for (int j = 0; j < g; ++j) row[j] += bias[j];
  }
  if (!static_input_) return;
  Gemm(false, true, N_, g, Ds_, 1.f, bottom[2]->data(), blobs_[static_blob()]->data(), 0.f,
       static_pre_.data());
  const size_t step = static_cast<size_t>(N_) * g;
  for (int t = 0; t < T_; ++t) {
    float* p = pre + t * step;
    for (size_t j = 0; j < step; ++j) p[j] += static_pre_[j];
  }
}

void RecurrentLayer::ContScale(const float* cont_t, const float* h, float* out) const {
  for (int n = 0; n < N_; ++n) {
    const float c = cont_t[n];
    for (int d = 0; d < H_; ++d) out[n * H_ + d] = c * h[n * H_ + d];
  }
}

void RecurrentLayer::InputBackward(const float* dpre, const float* h_conted,
                                   const std::vector<bool>& propagate_down,
                                   const TensorVec& bottom) {
  const int g = GateDim();
  const int rows = T_ * N_;
  if (param_propagate_down(0)) {
    Gemm(true, false, g, D_, rows, 1.f, dpre, bottom[0]->data(), 1.f, blobs_[0]->mutable_diff());
  }
  if (param_propagate_down(1)) {
    float* db = blobs_[1]->mutable_diff();
    for (int r = 0; r < rows; ++r) {
      const float* row = dpre + static_cast<size_t>(r) * g;
      for (int j = 0; j < g; ++j) db[j] += row[j];
    }
  }
  if (param_propagate_down(recurrent_blob())) {
    Gemm(true, false, g, H_, rows, 1.f, dpre, h_conted, 1.f,
         blobs_[recurrent_blob()]->mutable_diff());
  }
  if (propagate_down[0]) {
    Gemm(false, false, rows, D_, g, 1.f, dpre, blobs_[0]->data(), 0.f, bottom[0]->mutable_diff());
  }
  if (!static_input_) return;
  // Every time step saw x_static: its pre-activation diff is the sum over time.
  const size_t step = static_cast<size_t>(N_) * g;
  std::fill(dstatic_.begin(), dstatic_.end(), 0.f);
  for (int t = 0; t < T_; ++t) {
    const float* d = dpre + t * step;
    for (size_t j = 0; j < step; ++j) dstatic_[j] += d[j];
  }
  if (param_propagate_down(static_blob())) {
    Gemm(true, false, g, Ds_, N_, 1.f, dstatic_.data(), bottom[2]->data(), 1.f,
         blobs_[static_blob()]->mutable_diff());
  }
  if (propagate_down[2]) {
    Gemm(false, false, N_, Ds_, g, 1.f, dstatic_.data(), blobs_[static_blob()]->data(), 0.f,
         bottom[2]->mutable_diff());
  }
}

}  // namespace dtrain
