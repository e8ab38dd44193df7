#include "layers/input_layer.h"

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status InputLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const InputParameter& p = param_.input_param();
  const int num_shapes = p.shape_size();
  const int num_tops = static_cast<int>(top.size());
  if (num_shapes != 0 && num_shapes != 1 && num_shapes != num_tops) {
    return Error("input_param must give 0, 1 or one shape per top (" + std::to_string(num_tops) +
                 "), got " + std::to_string(num_shapes));
  }
  if (num_shapes == 0) return Status::Ok();
  for (int i = 0; i < num_tops; ++i) {
    const int which = num_shapes == 1 ? 0 : i;
    StatusOr<std::vector<int>> shape = ShapeFromProto(p.shape(which));
    if (!shape.ok()) {
      return Error("input_param.shape[" + std::to_string(which) + "]: " + shape.status().message());
    }
    top[i]->Reshape(*shape);
  }
  return Status::Ok();
}

}  // namespace dtrain
