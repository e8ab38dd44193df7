#include "layers/dummy_data_layer.h"

#include "core/filler.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

bool IsConstant(const FillerParameter& f) { return f.type() == "constant"; }

}  // namespace

bool DummyDataLayer::Refills(int top_index) const {
  return param_.dummy_data_param().refill() && !IsConstant(filler(top_index));
}

Status DummyDataLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const DummyDataParameter& p = param_.dummy_data_param();
  const int num_tops = static_cast<int>(top.size());
  auto one_or_per_top = [&](int n) { return n == 1 || n == num_tops; };

  const int num_fillers = p.data_filler_size();
  if (num_fillers > 1 && num_fillers != num_tops) {
    return Error("data_filler must be given 0, 1 or one per top (" + std::to_string(num_tops) +
                 ") times, got " + std::to_string(num_fillers));
  }
  fillers_.clear();
  if (num_fillers == 0) {
    fillers_.emplace_back();  // constant 0
  } else {
    fillers_.assign(p.data_filler().begin(), p.data_filler().end());
  }
  for (const FillerParameter& f : fillers_) {
    const Status valid = ValidateFiller(f);
    if (!valid.ok()) return Error(valid.message());
  }

  const bool legacy =
      p.num_size() > 0 || p.channels_size() > 0 || p.height_size() > 0 || p.width_size() > 0;
  if (legacy) {
    if (p.shape_size() > 0)
      return Error("give either shape or num/channels/height/width, not both");
    if (!one_or_per_top(p.num_size()) || !one_or_per_top(p.channels_size()) ||
        !one_or_per_top(p.height_size()) || !one_or_per_top(p.width_size())) {
      return Error(
          "num, channels, height and width must each be given once or "
          "once per top (" +
          std::to_string(num_tops) + ")");
    }
  } else if (!one_or_per_top(p.shape_size())) {
    return Error("shape must be given once or once per top (" + std::to_string(num_tops) +
                 "), got " + std::to_string(p.shape_size()));
  }

  for (int i = 0; i < num_tops; ++i) {
    std::vector<int> shape;
    if (legacy) {
      auto pick = [&](const google::protobuf::RepeatedField<uint32_t>& v) {
        return static_cast<int>(v.size() == 1 ? v.Get(0) : v.Get(i));
      };
      shape = {pick(p.num()), pick(p.channels()), pick(p.height()), pick(p.width())};
    } else {
      const int which = p.shape_size() == 1 ? 0 : i;
      StatusOr<std::vector<int>> given = ShapeFromProto(p.shape(which));
      if (!given.ok()) {
        return Error("dummy_data_param.shape[" + std::to_string(which) +
                     "]: " + given.status().message());
      }
      shape = *given;
    }
    if (Status fits = CheckTensorShape(shape); !fits.ok()) {
      return Error("top " + std::to_string(i) + ": " + fits.message());
    }
    top[i]->Reshape(shape);
    // Constant tops (and all of them without refill) are filled once, here; the others on every
    // Forward.
    if (!Refills(i)) DT_RETURN_IF_ERROR(Fill(filler(i), rng_, top[i]));
  }
  return Status::Ok();
}

Status DummyDataLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  for (size_t i = 0; i < top.size(); ++i) {
    if (Refills(static_cast<int>(i))) DT_RETURN_IF_ERROR(Fill(filler(i), rng_, top[i]));
  }
  return Status::Ok();
}

}  // namespace dtrain
