// Exporters of the detection heads' layers that ONNX computes exactly: Permute (Transpose),
// Normalize (an L2 norm, eps inside the square root, then the learned scale), Axpy (Mul, Add),
// PriorBox (its boxes depend only on the net's shapes: a constant) and YOLO v2's Reorg
// (SpaceToDepth between two Reshapes; DepthToSpace when reversed). DetectionOutput and the other
// detection layers have no exporter: refused by name.
#include "export/onnx_layer_export.h"
#include "layers/prior_box_layer.h"
#include "proto/detection_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

// Permute: the order given, the axes it does not name after it in their order.
Status ExportPermute(LayerExport& e) {
  const int axes = e.bottom[0]->num_axes();
  std::vector<int64_t> perm;
  std::vector<bool> named(axes, false);
  for (const uint32_t axis : e.param().permute_param().order()) {
    perm.push_back(axis);
    named[axis] = true;
  }
  for (int a = 0; a < axes; ++a) {
    if (!named[a]) perm.push_back(a);
  }
  if (perm[0] != 0) DT_RETURN_IF_ERROR(e.RequireNotBatchAxis(0));
  SetAttribute(e.Node("Transpose", {e.inputs[0]}, {e.Output(0)}), "perm", perm);
  return Status::Ok();
}

// Normalize: x / sqrt(sum of squares + eps) over each item (across_spatial) or each position's
// channels, times the scale (one value, or one per channel along axis 1).
Status ExportNormalize(LayerExport& e) {
  const NormalizeParameter& p = e.param().norm_param();
  const Tensor& bottom = *e.bottom[0];
  std::vector<int64_t> axes = {1};
  if (p.across_spatial()) {
    for (int a = 2; a < bottom.num_axes(); ++a) axes.push_back(a);
  }
  const std::string squares = e.graph->Temporary(e.Name("sum_of_squares"));
  onnx::NodeProto* reduce = e.Node("ReduceSumSquare", {e.inputs[0]}, {squares}, "reduce");
  SetAttribute(reduce, "axes", axes);
  SetAttribute(reduce, "keepdims", int64_t{1});
  const std::string shifted = e.graph->Temporary(e.Name("plus_eps"));
  e.Node("Add", {squares, e.graph->Scalar(e.Name("eps"), p.eps())}, {shifted}, "eps");
  const std::string norm = e.graph->Temporary(e.Name("norm"));
  e.Node("Sqrt", {shifted}, {norm}, "sqrt");
  const std::string unit = e.graph->Temporary(e.Name("unit"));
  e.Node("Div", {e.inputs[0], norm}, {unit}, "divide");
  const Tensor& scale = *e.layer.blobs()[0];
  std::vector<int64_t> dims;  // the scale broadcast along axis 1
  if (scale.num_axes() > 0) {
    dims.assign(bottom.num_axes(), 1);
    dims[1] = scale.count();
  }
  const std::string weights = e.graph->Floats(
      e.Name("scale"), dims, std::vector<float>(scale.data(), scale.data() + scale.count()));
  e.Node("Mul", {unit, weights}, {e.Output(0)});
  return Status::Ok();
}

// Axpy: a (N, C) or (N, C, 1, 1) times x (N, C, H, W), plus y.
Status ExportAxpy(LayerExport& e) {
  std::vector<int64_t> dims(e.bottom[1]->num_axes(), 1);
  dims[0] = e.bottom[0]->shape(0);
  dims[1] = e.bottom[0]->shape(1);
  const std::string shape = e.graph->Shape(e.Name("scale_shape"), dims, true);
  const std::string a = e.graph->Temporary(e.Name("scale"));
  e.Node("Reshape", {e.inputs[0], shape}, {a}, "reshape");
  const std::string ax = e.graph->Temporary(e.Name("scaled"));
  e.Node("Mul", {a, e.inputs[1]}, {ax}, "multiply");
  e.Node("Add", {ax, e.inputs[2]}, {e.Output(0)});
  return Status::Ok();
}

// PriorBox: the boxes and variances for the net's shapes, as an initializer.
Status ExportPriorBox(LayerExport& e) {
  const auto* layer = dynamic_cast<const PriorBoxLayer*>(&e.layer);
  if (layer == nullptr) return e.Refuse("not a PriorBox layer");
  const Tensor& top = *e.top[0];
  std::vector<float> priors(static_cast<size_t>(top.count()));
  layer->ComputePriors(priors.data());
  const std::string boxes = e.graph->Floats(e.Name("priors"), Dims(top), priors);
  e.Node("Identity", {boxes}, {e.Output(0)});
  return Status::Ok();
}

// Reorg (reorg_layer.h's map P): with c = k C' + c0 and k = dy s + dx, the top read with the
// bottom's shape (N, C, H, W) holds at (n, c, h, w) the bottom read as (N, C', H s, W s) at
// (n, c0, h s + dy, w s + dx): ONNX's SpaceToDepth of that view (its output channel is
// (dy s + dx) C' + c0), then the top's shape. Reversed, the top (N, C', H s, W s) holds at
// (n, c0, h s + dy, w s + dx) the bottom's (n, k C' + c0, h, w): DepthToSpace in DCR order.
Status ExportReorg(LayerExport& e) {
  const ReorgParameter& p = e.param().reorg_param();
  const int64_t s = p.stride();
  if (p.reverse()) {
    onnx::NodeProto* node = e.Node("DepthToSpace", {e.inputs[0]}, {e.Output(0)});
    SetAttribute(node, "blocksize", s);
    SetAttribute(node, "mode", std::string("DCR"));
    return Status::Ok();
  }
  const Tensor& x = *e.bottom[0];
  const int64_t n = x.shape(0), c = x.shape(1), h = x.shape(2), w = x.shape(3);
  const std::string view = e.graph->Temporary(e.Name("view"));
  e.Node("Reshape",
         {e.inputs[0], e.graph->Shape(e.Name("view_shape"), {n, c / (s * s), h * s, w * s}, true)},
         {view}, "view");
  const std::string moved = e.graph->Temporary(e.Name("space_to_depth"));
  SetAttribute(e.Node("SpaceToDepth", {view}, {moved}, "space_to_depth"), "blocksize", s);
  e.Node("Reshape", {moved, e.graph->Shape(e.Name("top_shape"), Dims(*e.top[0]), true)},
         {e.Output(0)});
  return Status::Ok();
}

}  // namespace

void AddDetectionExporters(ExporterTable* table) {
  (*table)["Reorg"] = ExportReorg;
  (*table)["PriorBox"] = ExportPriorBox;
  (*table)["Permute"] = ExportPermute;
  (*table)["Normalize"] = ExportNormalize;
  (*table)["Axpy"] = ExportAxpy;
}

}  // namespace dtrain
