#include "layers/lstm_layer.h"

#include <algorithm>

#include "kernels/reference/gemm.h"
#include "layers/lstm_cell.h"

namespace dtrain {

std::vector<RecurrentLayer::BlobSpec> LSTMLayer::BlobSpecs() const {
  std::vector<BlobSpec> specs = {{"W_xc", {4 * H_, D_}, false}, {"b_c", {4 * H_}, true}};
  if (static_input_) specs.push_back({"W_xc_static", {4 * H_, Ds_}, false});
  specs.push_back({"W_hc", {4 * H_, H_}, false});
  return specs;
}

void LSTMLayer::ReshapeBuffers() {
  const size_t step = static_cast<size_t>(N_) * H_;
  gates_.resize(T_ * step * 4);
  dgates_.resize(T_ * step * 4);
  c_.resize((T_ + 1) * step);
  h_conted_.resize(T_ * step);
  dh_.resize(step);
  dh_total_.resize(step);
  dc_.resize(step);
  dh_conted_.resize(step);
}

Status LSTMLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const int H = H_, G = 4 * H_;
  const size_t step = static_cast<size_t>(N_) * H;
  InputTransform(bottom, gates_.data());
  const float* cont = bottom[1]->data();
  const float* w_hc = blobs_[recurrent_blob()]->data();
  float* h = top[0]->mutable_data();
  const float* h_prev = InitialState(bottom, 0);
  const float* c0 = InitialState(bottom, 1);
  std::copy(c0, c0 + step, c_.begin());
  for (int t = 0; t < T_; ++t) {
    const float* cont_t = cont + t * N_;
    float* hc = h_conted_.data() + t * step;
    float* gates = gates_.data() + t * step * 4;
    ContScale(cont_t, h_prev, hc);
    reference::Gemm(false, true, N_, G, H, 1.f, hc, w_hc, 1.f, gates);
    float* h_t = h + t * step;
    LstmCellForward(N_, H, gates, cont_t, c_.data() + t * step, gates, c_.data() + (t + 1) * step,
                    h_t);
    h_prev = h_t;
  }
  SaveFinalState(h + (T_ - 1) * step, 0, top);
  SaveFinalState(c_.data() + T_ * step, 1, top);
  return Status::Ok();
}

void LSTMLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                             const TensorVec& bottom) {
  const int H = H_, G = 4 * H_;
  const size_t step = static_cast<size_t>(N_) * H;
  const float* cont = bottom[1]->data();
  const float* w_hc = blobs_[recurrent_blob()]->data();
  const float* h_diff = top[0]->diff();
  // dh_, dc_: the diffs of h_t and c_t that come from later steps (or the h_T, c_T tops).
  const float* dh_T = FinalStateDiff(top, 0);
  const float* dc_T = FinalStateDiff(top, 1);
  if (dh_T)
    std::copy(dh_T, dh_T + step, dh_.begin());
  else
    std::fill(dh_.begin(), dh_.end(), 0.f);
  if (dc_T)
    std::copy(dc_T, dc_T + step, dc_.begin());
  else
    std::fill(dc_.begin(), dc_.end(), 0.f);
  for (int t = T_ - 1; t >= 0; --t) {
    const float* cont_t = cont + t * N_;
    const float* dh_top = h_diff + t * step;
    for (size_t j = 0; j < step; ++j) dh_total_[j] = dh_top[j] + dh_[j];
    float* dgates = dgates_.data() + t * step * 4;
    // dc_ becomes the diff of c_{t-1}.
    LstmCellBackward(N_, H, gates_.data() + t * step * 4, cont_t, c_.data() + t * step,
                     c_.data() + (t + 1) * step, dh_total_.data(), dc_.data(), dgates, dc_.data());
    // The diff of h_{t-1}: through W_hc, then through the cont scaling.
    reference::Gemm(false, false, N_, H, G, 1.f, dgates, w_hc, 0.f, dh_conted_.data());
    ContScale(cont_t, dh_conted_.data(), dh_.data());
  }
  SetInitialStateDiff(dh_.data(), 0, propagate_down, bottom);
  SetInitialStateDiff(dc_.data(), 1, propagate_down, bottom);
  InputBackward(dgates_.data(), h_conted_.data(), propagate_down, bottom);
}

}  // namespace dtrain
