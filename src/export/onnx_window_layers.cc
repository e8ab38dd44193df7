// Exporters of the layers that slide a window or multiply by a weight matrix: Convolution,
// Deconvolution, InnerProduct, Pooling, LRN (see onnx_layer_export.h).
#include <algorithm>

#include "export/onnx_layer_export.h"
#include "layers/base_convolution_layer.h"
#include "layers/pooling_layer.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

using kernels::Window2d;

// The window's attributes; `pads` in ONNX's order (begin h, begin w, end h, end w).
void SetWindow(onnx::NodeProto* node, const Window2d& w, const std::vector<int64_t>& pads) {
  SetAttribute(node, "kernel_shape", std::vector<int64_t>{w.kernel_h, w.kernel_w});
  SetAttribute(node, "strides", std::vector<int64_t>{w.stride_h, w.stride_w});
  SetAttribute(node, "pads", pads);
}

// Convolution and Deconvolution (ConvTranspose), over any number of spatial axes: Caffe's weight
// layouts are ONNX's, (out, in / group, kernel...) and (in, out / group, kernel...); output sizes
// agree with symmetric padding and no output_padding. Top i is bottom i through the same
// weights. ONNX's channels are axis 1: another channel axis is refused.
Status ExportConvolution(LayerExport& e, const char* op) {
  const auto* conv = dynamic_cast<const BaseConvolutionLayer*>(&e.layer);
  if (conv == nullptr) return e.Refuse("not a convolution layer");
  if (conv->channel_axis() != 1) {
    return e.Refuse("convolution_param.axis " + std::to_string(conv->channel_axis()) +
                    " (ONNX's channels are axis 1)");
  }
  std::vector<int64_t> kernel, strides, pads, dilations;
  for (const kernels::SpatialAxis& a : conv->axes()) {
    kernel.push_back(a.kernel);
    strides.push_back(a.stride);
    pads.push_back(a.pad);
    dilations.push_back(a.dilation);
  }
  const std::vector<int64_t> begins = pads;
  pads.insert(pads.end(), begins.begin(), begins.end());  // the begins, then the same ends
  std::vector<std::string> in = {"", e.graph->Weights(e.Name("weight"), *e.layer.blobs()[0])};
  if (conv->bias_term()) in.push_back(e.graph->Weights(e.Name("bias"), *e.layer.blobs()[1]));
  for (size_t i = 0; i < e.bottom.size(); ++i) {
    in[0] = e.inputs[i];
    onnx::NodeProto* node = e.Node(op, in, {e.Output(static_cast<int>(i))});
    SetAttribute(node, "kernel_shape", kernel);
    SetAttribute(node, "strides", strides);
    SetAttribute(node, "pads", pads);
    SetAttribute(node, "dilations", dilations);
    SetAttribute(node, "group", static_cast<int64_t>(conv->group()));
  }
  return Status::Ok();
}

// InnerProduct: the axes from `axis` on flattened to K, Gemm with the (N, K) weights (transB), or
// (K, N) with `transpose`; a top of other than 2 axes is the Gemm's (M, N) reshaped.
Status ExportInnerProduct(LayerExport& e) {
  const InnerProductParameter& p = e.param().inner_product_param();
  const Tensor& bottom = *e.bottom[0];
  const int axis = bottom.CanonicalAxisIndex(p.axis());
  DT_RETURN_IF_ERROR(e.RequireNotBatchAxis(axis));
  std::string x = e.inputs[0];
  if (bottom.num_axes() != 2 || axis != 1) {
    const std::string flat = e.graph->Temporary(e.Name("flat"));
    SetAttribute(e.Node("Flatten", {x}, {flat}, "flatten"), "axis", static_cast<int64_t>(axis));
    x = flat;
  }
  std::vector<std::string> in = {x, e.graph->Weights(e.Name("weight"), *e.layer.blobs()[0])};
  if (p.bias_term()) in.push_back(e.graph->Weights(e.Name("bias"), *e.layer.blobs()[1]));
  const bool reshape = e.top[0]->num_axes() != 2;
  const std::string product = reshape ? e.graph->Temporary(e.Name("gemm")) : e.Output(0);
  SetAttribute(e.Node("Gemm", in, {product}), "transB",
               static_cast<int64_t>(p.transpose() ? 0 : 1));
  if (reshape) {
    const std::string shape = e.graph->Shape(e.Name("shape"), Dims(*e.top[0]), true);
    e.Node("Reshape", {product, shape}, {e.Output(0)}, "reshape");
  }
  return Status::Ok();
}

// The end padding that makes ONNX's floor-rounded count of windows over `in` (begin padding
// `pad`) equal the top's `out` (Caffe's count, ceil- or floor-rounded, a last window starting
// in the padding dropped). A window past the input's end is refused.
StatusOr<int64_t> EndPad(const LayerExport& e, int in, int out, int kernel, int stride, int pad) {
  const int64_t end = std::max<int64_t>(0, int64_t{out - 1} * stride + kernel - in - pad);
  if (end >= kernel) {
    return e.Refuse("its last window (stride " + std::to_string(stride) + " > kernel " +
                    std::to_string(kernel) + ") lies wholly past the input");
  }
  return end;
}

// Pooling. MAX: MaxPool with Caffe's begin padding and the end padding of EndPad (padded values
// never win, as in Caffe). AVE: Caffe divides by the window clipped to the padded input, so the
// input is zero-padded explicitly (Pad) and AveragePool counts only what lies inside it
// (count_include_pad 0) over the end overhang.
Status ExportPooling(LayerExport& e) {
  const auto* pool = dynamic_cast<const PoolingLayer*>(&e.layer);
  if (pool == nullptr) return e.Refuse("not a pooling layer");
  if (e.top.size() > 1) return e.Refuse("its second top, the argmax mask");
  const bool max = pool->method() == kernels::PoolMethod::kMax;
  if (!max && pool->method() != kernels::PoolMethod::kAverage) {
    return e.Refuse("STOCHASTIC pooling's test-time weighted average");
  }
  if (pool->global()) {
    e.Node(max ? "GlobalMaxPool" : "GlobalAveragePool", {e.inputs[0]}, {e.Output(0)});
    return Status::Ok();
  }
  const Window2d& w = pool->window();
  const Tensor& bottom = *e.bottom[0];
  const Tensor& top = *e.top[0];
  const int pad_h = max ? w.pad_h : 0, pad_w = max ? w.pad_w : 0;  // AVE: padded by Pad
  const int in_h = bottom.shape(2) + 2 * (w.pad_h - pad_h);
  const int in_w = bottom.shape(3) + 2 * (w.pad_w - pad_w);
  DT_ASSIGN_OR_RETURN(const int64_t end_h,
                      EndPad(e, in_h, top.shape(2), w.kernel_h, w.stride_h, pad_h));
  DT_ASSIGN_OR_RETURN(const int64_t end_w,
                      EndPad(e, in_w, top.shape(3), w.kernel_w, w.stride_w, pad_w));
  std::string x = e.inputs[0];
  if (!max && (w.pad_h > 0 || w.pad_w > 0)) {
    const std::string padded = e.graph->Temporary(e.Name("padded"));
    const std::string pads =
        e.graph->Int64s(e.Name("pads"), {0, 0, w.pad_h, w.pad_w, 0, 0, w.pad_h, w.pad_w});
    e.Node("Pad", {x, pads}, {padded}, "pad");
    x = padded;
  }
  onnx::NodeProto* node = e.Node(max ? "MaxPool" : "AveragePool", {x}, {e.Output(0)});
  SetWindow(node, w, {pad_h, pad_w, end_h, end_w});
  if (!max) SetAttribute(node, "count_include_pad", int64_t{0});
  return Status::Ok();
}

// LRN. ACROSS_CHANNELS is ONNX's LRN (the same centred window, alpha / size). WITHIN_CHANNEL:
// x * (1 + alpha * mean of x^2 over the size x size square, zero-padded)^-beta.
Status ExportLRN(LayerExport& e) {
  const LRNParameter& p = e.param().lrn_param();
  const int64_t size = p.local_size();
  if (p.norm_region() == LRNParameter::ACROSS_CHANNELS) {
    onnx::NodeProto* node = e.Node("LRN", {e.inputs[0]}, {e.Output(0)});
    SetAttribute(node, "size", size);
    SetAttribute(node, "alpha", p.alpha());
    SetAttribute(node, "beta", p.beta());
    SetAttribute(node, "bias", p.k());
    return Status::Ok();
  }
  const std::string& x = e.inputs[0];
  const std::string squared = e.graph->Temporary(e.Name("squared"));
  e.Node("Mul", {x, x}, {squared}, "square");
  const std::string mean = e.graph->Temporary(e.Name("mean"));
  const int64_t pad = (size - 1) / 2;
  onnx::NodeProto* pool = e.Node("AveragePool", {squared}, {mean}, "mean");
  SetAttribute(pool, "kernel_shape", std::vector<int64_t>{size, size});
  SetAttribute(pool, "pads", std::vector<int64_t>{pad, pad, pad, pad});
  SetAttribute(pool, "count_include_pad", int64_t{1});
  const std::string scaled = e.graph->Temporary(e.Name("scaled"));
  e.Node("Mul", {mean, e.graph->Scalar(e.Name("alpha"), p.alpha())}, {scaled}, "alpha");
  const std::string shifted = e.graph->Temporary(e.Name("shifted"));
  e.Node("Add", {scaled, e.graph->Scalar(e.Name("one"), 1.0f)}, {shifted}, "shift");
  const std::string power = e.graph->Temporary(e.Name("power"));
  e.Node("Pow", {shifted, e.graph->Scalar(e.Name("beta"), -p.beta())}, {power}, "power");
  e.Node("Mul", {x, power}, {e.Output(0)});
  return Status::Ok();
}

}  // namespace

void AddWindowExporters(ExporterTable* table) {
  (*table)["Convolution"] = [](LayerExport& e) { return ExportConvolution(e, "Conv"); };
  (*table)["Deconvolution"] = [](LayerExport& e) { return ExportConvolution(e, "ConvTranspose"); };
  (*table)["InnerProduct"] = ExportInnerProduct;
  (*table)["Pooling"] = ExportPooling;
  (*table)["LRN"] = ExportLRN;
}

}  // namespace dtrain
