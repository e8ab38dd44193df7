#include "layers/layer.h"

#include <algorithm>
#include <new>
#include <numeric>

#include "core/machine_memory.h"
#include "proto/net.pb.h"

namespace dtrain {

static_assert(Phase{} == TRAIN, "LayerContext::phase defaults to Phase{}, meaning TRAIN");

Layer::Layer(const LayerParameter& param, const LayerContext& context)
    : own_param_(std::make_unique<LayerParameter>(param)),
      param_(*own_param_),
      phase_(context.phase),
      rng_(context.seed),
      scratch_(context.scratch),
      engine_name_(context.engine) {}

Layer::~Layer() = default;

const std::string& Layer::name() const { return param_.name(); }

Status Layer::Error(const std::string& message) const {
  return InvalidArgument("layer '" + param_.name() + "' (" + param_.type() + "): " + message);
}

StatusOr<int> Layer::Dimension(const std::string& what, int64_t value, bool positive) const {
  if (value > INT32_MAX) {
    return Error(what + " is " + std::to_string(value) + ", more than a dimension may be " +
                 "(2147483647)");
  }
  if (value < (positive ? 1 : 0)) {
    return Error(what + " must be " + (positive ? "positive" : "non-negative") + ", got " +
                 std::to_string(value));
  }
  return static_cast<int>(value);
}

Status Layer::CheckBlobCounts(const TensorVec& bottom, const TensorVec& top) const {
  auto count_error = [&](const char* what, const char* rel, int want, size_t got) {
    return Error(std::string(what) + " takes " + rel + std::to_string(want) + " blob(s), got " +
                 std::to_string(got));
  };
  if (ExactNumBottomBlobs() >= 0 && bottom.size() != static_cast<size_t>(ExactNumBottomBlobs()))
    return count_error("bottom", "exactly ", ExactNumBottomBlobs(), bottom.size());
  if (MinBottomBlobs() >= 0 && bottom.size() < static_cast<size_t>(MinBottomBlobs()))
    return count_error("bottom", "at least ", MinBottomBlobs(), bottom.size());
  if (MaxBottomBlobs() >= 0 && bottom.size() > static_cast<size_t>(MaxBottomBlobs()))
    return count_error("bottom", "at most ", MaxBottomBlobs(), bottom.size());
  if (ExactNumTopBlobs() >= 0 && top.size() != static_cast<size_t>(ExactNumTopBlobs()))
    return count_error("top", "exactly ", ExactNumTopBlobs(), top.size());
  if (MinTopBlobs() >= 0 && top.size() < static_cast<size_t>(MinTopBlobs()))
    return count_error("top", "at least ", MinTopBlobs(), top.size());
  if (MaxTopBlobs() >= 0 && top.size() > static_cast<size_t>(MaxTopBlobs()))
    return count_error("top", "at most ", MaxTopBlobs(), top.size());
  if (EqualNumBottomTopBlobs() && bottom.size() != top.size())
    return Error("needs as many tops as bottoms, got " + std::to_string(bottom.size()) +
                 " bottom(s) and " + std::to_string(top.size()) + " top(s)");
  return Status::Ok();
}

// Runs `body`, turning a refused tensor size or a failed allocation into this layer's error.
template <typename Body>
Status Layer::Guarded(const char* stage, Body&& body) {
  try {
    return body();
  } catch (const TensorShapeError& e) {
    return Error(e.what());
  } catch (const std::bad_alloc&) {
    return Error(std::string("out of memory in ") + stage + " (this machine has " +
                 ByteSize(static_cast<double>(MachineMemoryBytes())) + ")");
  }
}

Status Layer::Setup(const TensorVec& bottom, const TensorVec& top) {
  return Guarded("setup", [&] { return SetupUnguarded(bottom, top); });
}

Status Layer::Forward(const TensorVec& bottom, const TensorVec& top, float* loss) {
  return Guarded("forward", [&] { return ForwardUnguarded(bottom, top, loss); });
}

Status Layer::SetupUnguarded(const TensorVec& bottom, const TensorVec& top) {
  DT_RETURN_IF_ERROR(CheckBlobCounts(bottom, top));
  StatusOr<Engine> engine = ParseEngine(engine_name_);
  if (!engine.ok()) return Error(engine.status().message());
  engine_ = *engine;
  DT_RETURN_IF_ERROR(LayerSetUp(bottom, top));
  DT_RETURN_IF_ERROR(Reshape(bottom, top));
  param_propagate_down_.resize(blobs_.size(), true);
  loss_weights_.assign(top.size(), 0.f);
  for (size_t i = 0; i < top.size(); ++i) {
    loss_weights_[i] = i < static_cast<size_t>(param_.loss_weight_size())
                           ? param_.loss_weight(static_cast<int>(i))
                           : DefaultLossWeight(static_cast<int>(i));
  }
  if (param_.loss_weight_size() > 0 && param_.loss_weight_size() != static_cast<int>(top.size())) {
    return Error("loss_weight must be given once per top (" + std::to_string(top.size()) +
                 "), got " + std::to_string(param_.loss_weight_size()));
  }
  return Status::Ok();
}

Status Layer::RestoreState(const std::string& state) {
  if (!rng_.Deserialize(state)) return DataLoss("corrupt random state for layer '" + name() + "'");
  return Status::Ok();
}

bool Layer::BottomShapesUnchanged(const TensorVec& bottom) {
  bool same = !bottom.empty() && reshaped_for_.size() == bottom.size();
  for (size_t i = 0; same && i < bottom.size(); ++i) same = reshaped_for_[i] == bottom[i]->shape();
  if (same) return true;
  reshaped_for_.resize(bottom.size());
  for (size_t i = 0; i < bottom.size(); ++i) reshaped_for_[i] = bottom[i]->shape();
  return false;
}

Status Layer::ForwardUnguarded(const TensorVec& bottom, const TensorVec& top, float* loss) {
  if (absorbed_) {  // the absorbing layer computed the top (in place, no loss weight)
    if (loss != nullptr) *loss = 0.f;
    return Status::Ok();
  }
  // A layer's tops and kernels depend only on its parameters and bottom shapes; a layer without
  // bottoms (data) reshapes every time.
  if (!BottomShapesUnchanged(bottom)) {
    const Status status = Reshape(bottom, top);
    if (!status.ok()) {
      reshaped_for_.clear();  // try again next time
      return status;
    }
  }
  DT_RETURN_IF_ERROR(ForwardImpl(bottom, top));
  // A loss top's diff holds its loss weight (primed by the net before backward), so the
  // weighted loss is sum(weight * data), as in Caffe.
  float total = 0.f;
  for (size_t i = 0; i < top.size(); ++i) {
    const float w = loss_weights_[i];
    if (w == 0.f) continue;
    const float* d = top[i]->data();
    double sum = 0;
    for (int64_t j = 0; j < top[i]->count(); ++j) sum += d[j];
    total += w * static_cast<float>(sum);
  }
  if (loss) *loss = total;
  return Status::Ok();
}

void ZeroBottomDiffsFrom(size_t first, const std::vector<bool>& propagate_down,
                         const TensorVec& bottom) {
  for (size_t j = first; j < bottom.size(); ++j) {
    if (propagate_down[j]) std::fill_n(bottom[j]->mutable_diff(), bottom[j]->count(), 0.f);
  }
}

}  // namespace dtrain
