#include "layers/rnn_layer.h"

#include <algorithm>
#include <cmath>

#include "kernels/reference/gemm.h"

namespace dtrain {

using reference::Gemm;

std::vector<RecurrentLayer::BlobSpec> RNNLayer::BlobSpecs() const {
  std::vector<BlobSpec> specs = {{"W_xh", {H_, D_}, false}, {"b_h", {H_}, true}};
  if (static_input_) specs.push_back({"W_xh_static", {H_, Ds_}, false});
  specs.push_back({"W_hh", {H_, H_}, false});
  specs.push_back({"W_ho", {H_, H_}, false});
  specs.push_back({"b_o", {H_}, true});
  return specs;
}

void RNNLayer::ReshapeBuffers() {
  const size_t step = static_cast<size_t>(N_) * H_;
  for (auto* v : {&h_, &h_conted_, &do_, &dh_out_, &dpre_}) v->resize(T_ * step);
  dh_.resize(step);
  dh_conted_.resize(step);
}

Status RNNLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const int H = H_;
  const size_t step = static_cast<size_t>(N_) * H;
  const int rows = T_ * N_;
  InputTransform(bottom, h_.data());
  const float* cont = bottom[1]->data();
  const float* w_hh = blobs_[recurrent_blob()]->data();
  const float* h_prev = InitialState(bottom, 0);
  for (int t = 0; t < T_; ++t) {
    float* hc = h_conted_.data() + t * step;
    float* h_t = h_.data() + t * step;
    ContScale(cont + t * N_, h_prev, hc);
    Gemm(false, true, N_, H, H, 1.f, hc, w_hh, 1.f, h_t);
    for (size_t j = 0; j < step; ++j) h_t[j] = std::tanh(h_t[j]);
    h_prev = h_t;
  }
  SaveFinalState(h_prev, 0, top);
  float* o = top[0]->mutable_data();
  Gemm(false, true, rows, H, H, 1.f, h_.data(), blobs_[output_blob()]->data(), 0.f, o);
  const float* b_o = blobs_[output_blob() + 1]->data();
  for (int r = 0; r < rows; ++r) {
    for (int d = 0; d < H; ++d) o[r * H + d] = std::tanh(o[r * H + d] + b_o[d]);
  }
  return Status::Ok();
}

void RNNLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                            const TensorVec& bottom) {
  const int H = H_;
  const size_t step = static_cast<size_t>(N_) * H;
  const int rows = T_ * N_;
  const float* o = top[0]->data();
  const float* o_diff = top[0]->diff();
  for (size_t j = 0; j < rows * static_cast<size_t>(H); ++j)
    do_[j] = o_diff[j] * (1.f - o[j] * o[j]);
  if (param_propagate_down(output_blob())) {
    Gemm(true, false, H, H, rows, 1.f, do_.data(), h_.data(), 1.f,
         blobs_[output_blob()]->mutable_diff());
  }
  if (param_propagate_down(output_blob() + 1)) {
    float* db = blobs_[output_blob() + 1]->mutable_diff();
    for (int r = 0; r < rows; ++r) {
      for (int d = 0; d < H; ++d) db[d] += do_[r * H + d];
    }
  }
  Gemm(false, false, rows, H, H, 1.f, do_.data(), blobs_[output_blob()]->data(), 0.f,
       dh_out_.data());
  // dh_: the diff of h_t that comes from later steps (or the h_T top).
  const float* dh_T = FinalStateDiff(top, 0);
  if (dh_T)
    std::copy(dh_T, dh_T + step, dh_.begin());
  else
    std::fill(dh_.begin(), dh_.end(), 0.f);
  const float* w_hh = blobs_[recurrent_blob()]->data();
  for (int t = T_ - 1; t >= 0; --t) {
    const float* h_t = h_.data() + t * step;
    const float* dh_out = dh_out_.data() + t * step;
    float* dpre = dpre_.data() + t * step;
    for (size_t j = 0; j < step; ++j) dpre[j] = (dh_out[j] + dh_[j]) * (1.f - h_t[j] * h_t[j]);
    Gemm(false, false, N_, H, H, 1.f, dpre, w_hh, 0.f, dh_conted_.data());
    ContScale(bottom[1]->data() + t * N_, dh_conted_.data(), dh_.data());
  }
  SetInitialStateDiff(dh_.data(), 0, propagate_down, bottom);
  InputBackward(dpre_.data(), h_conted_.data(), propagate_down, bottom);
}

}  // namespace dtrain
