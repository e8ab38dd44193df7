// Exporters of the layers that move, pick or rearrange values: Concat, Slice, Split, Flatten,
// Reshape, Crop, Tile, Softmax, ArgMax, Reduction, Dropout, Embed, ShuffleChannel, Silence,
// Parameter (see onnx_layer_export.h). Shapes are the net's, so reshapes write the top's dims.
#include "export/onnx_layer_export.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

void SetInt(onnx::NodeProto* node, const std::string& name, int64_t value) {
  SetAttribute(node, name, value);
}

// `x` reshaped to `dims`, whose first axis is the batch, written as `out`.
std::string ReshapeTo(LayerExport& e, const std::string& x, const std::vector<int64_t>& dims,
                      const std::string& out, const std::string& what) {
  const std::string shape = e.graph->Shape(e.Name(what + "_shape"), dims, true);
  e.Node("Reshape", {x, shape}, {out}, what);
  return out;
}

// Flatten and Reshape: the top's dims (a shape change only).
Status ExportReshape(LayerExport& e) {
  if (e.top[0]->shape() == e.bottom[0]->shape()) {
    e.PassThrough(0, 0);
    return Status::Ok();
  }
  if (e.top[0]->num_axes() == 0 || e.top[0]->shape(0) != e.bottom[0]->shape(0)) {
    DT_RETURN_IF_ERROR(e.RequireNotBatchAxis(0));
  }
  const std::string shape = e.graph->Shape(e.Name("shape"), Dims(*e.top[0]), true);
  e.Node("Reshape", {e.inputs[0], shape}, {e.Output(0)});
  return Status::Ok();
}

Status ExportConcat(LayerExport& e) {
  const ConcatParameter& p = e.param().concat_param();
  if (e.bottom.size() == 1) {
    e.PassThrough(0, 0);
    return Status::Ok();
  }
  const int axis = p.has_concat_dim() ? static_cast<int>(p.concat_dim())
                                      : e.bottom[0]->CanonicalAxisIndex(p.axis());
  DT_RETURN_IF_ERROR(e.RequireNotBatchAxis(axis));
  SetInt(e.Node("Concat", e.inputs, {e.Output(0)}), "axis", axis);
  return Status::Ok();
}

// Slice (Caffe's) as one ONNX Slice per top, over the top's extent along the axis.
Status ExportSlice(LayerExport& e) {
  const SliceParameter& p = e.param().slice_param();
  const int axis = p.has_slice_dim() ? static_cast<int>(p.slice_dim())
                                     : e.bottom[0]->CanonicalAxisIndex(p.axis());
  DT_RETURN_IF_ERROR(e.RequireNotBatchAxis(axis));
  const std::string axes = e.graph->Int64s(e.Name("axes"), {axis});
  int64_t start = 0;
  for (size_t i = 0; i < e.top.size(); ++i) {
    const int64_t end = start + e.top[i]->shape(axis);
    const std::string what = "slice" + std::to_string(i);
    e.Node("Slice",
           {e.inputs[0], e.graph->Int64s(e.Name(what + "_starts"), {start}),
            e.graph->Int64s(e.Name(what + "_ends"), {end}), axes},
           {e.Output(static_cast<int>(i))}, e.top.size() == 1 ? "" : what);
    start = end;
  }
  return Status::Ok();
}

// Crop: bottom 0 cut to bottom 1's size on the axes from `axis` on, from the given offsets.
Status ExportCrop(LayerExport& e) {
  const CropParameter& p = e.param().crop_param();
  const Tensor& bottom = *e.bottom[0];
  const int axis = bottom.CanonicalAxisIndex(p.axis());
  DT_RETURN_IF_ERROR(e.RequireNotBatchAxis(axis));
  std::vector<int64_t> starts, ends, axes;
  for (int a = axis; a < bottom.num_axes(); ++a) {
    const int64_t offset = p.offset_size() == 0   ? 0
                           : p.offset_size() == 1 ? p.offset(0)
                                                  : p.offset(a - axis);
    starts.push_back(offset);
    ends.push_back(offset + e.top[0]->shape(a));
    axes.push_back(a);
  }
  e.Node("Slice",
         {e.inputs[0], e.graph->Int64s(e.Name("starts"), starts),
          e.graph->Int64s(e.Name("ends"), ends), e.graph->Int64s(e.Name("axes"), axes)},
         {e.Output(0)});
  return Status::Ok();
}

Status ExportTile(LayerExport& e) {
  const TileParameter& p = e.param().tile_param();
  const int axis = e.bottom[0]->CanonicalAxisIndex(p.axis());
  DT_RETURN_IF_ERROR(e.RequireNotBatchAxis(axis));
  std::vector<int64_t> repeats(e.bottom[0]->num_axes(), 1);
  repeats[axis] = p.tiles();
  e.Node("Tile", {e.inputs[0], e.graph->Int64s(e.Name("repeats"), repeats)}, {e.Output(0)});
  return Status::Ok();
}

Status ExportSoftmax(LayerExport& e) {
  const int axis = e.bottom[0]->CanonicalAxisIndex(e.param().softmax_param().axis());
  DT_RETURN_IF_ERROR(e.RequireNotBatchAxis(axis));
  SetInt(e.Node("Softmax", {e.inputs[0]}, {e.Output(0)}), "axis", axis);
  return Status::Ok();
}

// ArgMax: the indices (as floats) of the top_k largest values along `axis`, or, without an axis,
// over each example's values (top (N, 1, k), or (N, 2, k) with out_max_val: indices, then
// values). Ties go to the larger index, as Caffe sorts (value, index) pairs.
Status ExportArgMax(LayerExport& e) {
  const ArgMaxParameter& p = e.param().argmax_param();
  const int64_t k = p.top_k();
  std::string x = e.inputs[0];
  int64_t axis = 1;
  if (p.has_axis()) {
    axis = e.bottom[0]->CanonicalAxisIndex(p.axis());
    DT_RETURN_IF_ERROR(e.RequireNotBatchAxis(static_cast<int>(axis)));
  } else if (e.bottom[0]->num_axes() != 2) {
    const std::string flat = e.graph->Temporary(e.Name("flat"));
    SetInt(e.Node("Flatten", {x}, {flat}, "flatten"), "axis", 1);
    x = flat;
  }
  const bool reshape = !p.has_axis();  // (N, k) to (N, 1 or 2, k)
  std::string indices = e.graph->Temporary(e.Name("indices"));
  std::string values;
  if (k == 1 && !p.out_max_val()) {
    onnx::NodeProto* node = e.Node("ArgMax", {x}, {indices}, "argmax");
    SetInt(node, "axis", axis);
    SetInt(node, "keepdims", 1);
    SetInt(node, "select_last_index", 1);
  } else {  // TopK puts the smaller index first among equal values: exact without ties
    values = e.graph->Temporary(e.Name("values"));
    SetInt(e.Node("TopK", {x, e.graph->Int64s(e.Name("k"), {k})}, {values, indices}, "topk"),
           "axis", axis);
  }
  const bool only_values = p.out_max_val() && p.has_axis();
  const bool both = p.out_max_val() && !p.has_axis();
  const std::string out = reshape ? e.graph->Temporary(e.Name("result")) : e.Output(0);
  if (only_values) {
    e.Node("Identity", {values}, {out}, "values");
  } else {
    const std::string cast = both ? e.graph->Temporary(e.Name("float_indices")) : out;
    SetInt(e.Node("Cast", {indices}, {cast}, "cast"), "to", onnx::TensorProto::FLOAT);
    if (both) SetInt(e.Node("Concat", {cast, values}, {out}, "concat"), "axis", 1);
  }
  if (reshape) ReshapeTo(e, out, Dims(*e.top[0]), e.Output(0), "reshape");
  return Status::Ok();
}

// Reduction over the axes from `axis` on, times coeff.
Status ExportReduction(LayerExport& e) {
  const ReductionParameter& p = e.param().reduction_param();
  const Tensor& bottom = *e.bottom[0];
  const int axis = bottom.CanonicalAxisIndex(p.axis());
  DT_RETURN_IF_ERROR(e.RequireNotBatchAxis(axis));
  std::vector<int64_t> dims(bottom.shape().begin(), bottom.shape().begin() + axis);
  dims.push_back(bottom.count(axis));
  const std::string rows =
      ReshapeTo(e, e.inputs[0], dims, e.graph->Temporary(e.Name("rows")), "rows");
  const char* op = p.operation() == ReductionParameter::SUM     ? "ReduceSum"
                   : p.operation() == ReductionParameter::ASUM  ? "ReduceL1"
                   : p.operation() == ReductionParameter::SUMSQ ? "ReduceSumSquare"
                                                                : "ReduceMean";
  const bool scaled = p.coeff() != 1.0f;
  const std::string reduced = scaled ? e.graph->Temporary(e.Name("reduced")) : e.Output(0);
  std::vector<std::string> in = {rows};
  const bool axes_input = p.operation() == ReductionParameter::SUM;  // ReduceSum-13 takes an input
  if (axes_input) in.push_back(e.graph->Int64s(e.Name("axes"), {axis}));
  onnx::NodeProto* node = e.Node(op, in, {reduced}, scaled ? "reduce" : "");
  if (!axes_input) SetAttribute(node, "axes", std::vector<int64_t>{axis});
  SetInt(node, "keepdims", 0);
  if (scaled) e.Node("Mul", {reduced, e.graph->Scalar(e.Name("coeff"), p.coeff())}, {e.Output(0)});
  return Status::Ok();
}

// Embed: rows of the weights picked by the bottom's values (indices held as floats), plus bias.
Status ExportEmbed(LayerExport& e) {
  const std::string indices = e.graph->Temporary(e.Name("indices"));
  SetInt(e.Node("Cast", {e.inputs[0]}, {indices}, "cast"), "to", onnx::TensorProto::INT64);
  const bool bias = e.param().embed_param().bias_term();
  const std::string rows = bias ? e.graph->Temporary(e.Name("rows")) : e.Output(0);
  e.Node("Gather", {e.graph->Weights(e.Name("weight"), *e.layer.blobs()[0]), indices}, {rows},
         bias ? "gather" : "");
  if (bias) {
    e.Node("Add", {rows, e.graph->Weights(e.Name("bias"), *e.layer.blobs()[1])}, {e.Output(0)});
  }
  return Status::Ok();
}

// ShuffleChannel: channels read as a (group, C / group) matrix and transposed.
Status ExportShuffleChannel(LayerExport& e) {
  const Tensor& bottom = *e.bottom[0];
  const int64_t group = e.param().shuffle_channel_param().group();
  std::vector<int64_t> dims = Dims(bottom);
  dims.insert(dims.begin() + 1, group);
  dims[2] /= group;
  const std::string grouped =
      ReshapeTo(e, e.inputs[0], dims, e.graph->Temporary(e.Name("grouped")), "group");
  std::vector<int64_t> perm(dims.size());
  for (size_t a = 0; a < perm.size(); ++a) perm[a] = static_cast<int64_t>(a);
  std::swap(perm[1], perm[2]);
  const std::string transposed = e.graph->Temporary(e.Name("transposed"));
  SetAttribute(e.Node("Transpose", {grouped}, {transposed}, "transpose"), "perm", perm);
  ReshapeTo(e, transposed, Dims(*e.top[0]), e.Output(0), "ungroup");
  return Status::Ok();
}

}  // namespace

void AddShapeExporters(ExporterTable* table) {
  (*table)["Flatten"] = ExportReshape;
  (*table)["Reshape"] = ExportReshape;
  (*table)["Concat"] = ExportConcat;
  (*table)["Slice"] = ExportSlice;
  (*table)["Crop"] = ExportCrop;
  (*table)["Tile"] = ExportTile;
  (*table)["Softmax"] = ExportSoftmax;
  (*table)["ArgMax"] = ExportArgMax;
  (*table)["Reduction"] = ExportReduction;
  (*table)["Embed"] = ExportEmbed;
  (*table)["ShuffleChannel"] = ExportShuffleChannel;
  (*table)["Split"] = [](LayerExport& e) {
    for (size_t i = 0; i < e.top.size(); ++i) e.PassThrough(static_cast<int>(i), 0);
    return Status::Ok();
  };
  (*table)["Dropout"] = [](LayerExport& e) {  // identity at test time (Caffe scales in TRAIN)
    e.PassThrough(0, 0);
    return Status::Ok();
  };
  (*table)["Silence"] = [](LayerExport&) { return Status::Ok(); };
  (*table)["Parameter"] = [](LayerExport& e) {  // its blob as an initializer
    const std::string blob = e.graph->Weights(e.Name("value"), *e.layer.blobs()[0]);
    e.Node("Identity", {blob}, {e.Output(0)});
    return Status::Ok();
  };
}

}  // namespace dtrain
