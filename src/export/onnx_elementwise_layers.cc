// Exporters of the layers that compute each value from values at the same place: activations,
// Power, Exp, Log, Eltwise, Scale, Bias, BatchNorm (with the Scale after it folded in), MVN
// (see onnx_layer_export.h).
#include <cmath>

#include "export/onnx_layer_export.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

// A row of one-input nodes from bottom 0 to top 0, skipping the steps that change nothing; the
// last node written gets the top's value (an Identity when no step was needed).
class Chain {
 public:
  explicit Chain(LayerExport& e) : e_(e), value_(e.inputs[0]) {}
  // value = op(value, constant `operand`) (or op(value) when `operand` is "").
  void Step(const std::string& op, const std::string& what, const std::string& operand = "") {
    std::vector<std::string> in = {value_};
    if (!operand.empty()) in.push_back(operand);
    value_ = e_.graph->Temporary(e_.Name(what));
    last_ = e_.Node(op, in, {value_}, what);
  }
  void MulBy(float k, const std::string& what) {
    if (k != 1.0f) Step("Mul", what, e_.graph->Scalar(e_.Name(what), k));
  }
  void Add(float k, const std::string& what) {
    if (k != 0.0f) Step("Add", what, e_.graph->Scalar(e_.Name(what), k));
  }
  Status Finish() {
    if (last_ == nullptr) {
      e_.Node("Identity", {value_}, {e_.Output(0)});
    } else {
      last_->set_output(0, e_.Output(0));
    }
    return Status::Ok();
  }

 private:
  LayerExport& e_;
  std::string value_;
  onnx::NodeProto* last_ = nullptr;
};

// One node from bottom 0 to top 0.
onnx::NodeProto* Unary(LayerExport& e, const std::string& op) {
  return e.Node(op, {e.inputs[0]}, {e.Output(0)});
}

// The exporter of a layer that is one ONNX operator without attributes.
LayerExporter UnaryExporter(const char* op) {
  return [op](LayerExport& e) {
    Unary(e, op);
    return Status::Ok();
  };
}

Status ExportReLU(LayerExport& e) {
  const float slope = e.param().relu_param().negative_slope();
  if (slope == 0.0f) {
    Unary(e, "Relu");
  } else {
    SetAttribute(Unary(e, "LeakyRelu"), "alpha", slope);
  }
  return Status::Ok();
}

// PReLU: the slopes ({C}, or {1} when channel_shared) broadcast along the channel axis.
Status ExportPReLU(LayerExport& e) {
  const Tensor& slope = *e.layer.blobs()[0];
  const std::vector<int64_t> dims = e.param().prelu_param().channel_shared()
                                        ? std::vector<int64_t>{1}
                                        : BroadcastDims(Dims(slope), 1, e.bottom[0]->num_axes());
  e.Node("PRelu", {e.inputs[0], e.graph->Weights(e.Name("slope"), slope, dims)}, {e.Output(0)});
  return Status::Ok();
}

// Power: (shift + scale * x) ^ power.
Status ExportPower(LayerExport& e) {
  const PowerParameter& p = e.param().power_param();
  Chain chain(e);
  chain.MulBy(p.scale(), "scale");
  chain.Add(p.shift(), "shift");
  if (p.power() != 1.0f) chain.Step("Pow", "power", e.graph->Scalar(e.Name("power"), p.power()));
  return chain.Finish();
}

// Exp: base ^ (shift + scale * x) = base^shift * exp(ln(base) * scale * x), as Caffe computes it.
Status ExportExp(LayerExport& e) {
  const ExpParameter& p = e.param().exp_param();
  const float log_base = p.base() == -1.0f ? 1.0f : std::log(p.base());
  Chain chain(e);
  chain.MulBy(log_base * p.scale(), "inner_scale");
  chain.Step("Exp", "exp");
  chain.MulBy(p.base() == -1.0f ? std::exp(p.shift()) : std::pow(p.base(), p.shift()),
              "outer_scale");
  return chain.Finish();
}

// Log: log_base(shift + scale * x) = ln(shift + scale * x) / ln(base).
Status ExportLog(LayerExport& e) {
  const LogParameter& p = e.param().log_param();
  Chain chain(e);
  chain.MulBy(p.scale(), "scale");
  chain.Add(p.shift(), "shift");
  chain.Step("Log", "log");
  if (p.base() != -1.0f) chain.MulBy(1.0f / std::log(p.base()), "base_scale");
  return chain.Finish();
}

// Threshold: 1 where x > threshold, else 0.
Status ExportThreshold(LayerExport& e) {
  const std::string above = e.graph->Temporary(e.Name("above"));
  e.Node(
      "Greater",
      {e.inputs[0], e.graph->Scalar(e.Name("threshold"), e.param().threshold_param().threshold())},
      {above}, "greater");
  SetAttribute(e.Node("Cast", {above}, {e.Output(0)}), "to",
               static_cast<int64_t>(onnx::TensorProto::FLOAT));
  return Status::Ok();
}

Status ExportClip(LayerExport& e) {
  const ClipParameter& p = e.param().clip_param();
  e.Node("Clip",
         {e.inputs[0], e.graph->Scalar(e.Name("min"), p.min()),
          e.graph->Scalar(e.Name("max"), p.max())},
         {e.Output(0)});
  return Status::Ok();
}

// Swish: x * sigmoid(beta * x).
Status ExportSwish(LayerExport& e) {
  Chain chain(e);
  chain.MulBy(e.param().swish_param().beta(), "beta");
  chain.Step("Sigmoid", "sigmoid");
  chain.Step("Mul", "times_x", e.inputs[0]);
  return chain.Finish();
}

// Eltwise: SUM (coefficients as Muls before a Sum), PROD (a row of Muls), MAX.
Status ExportEltwise(LayerExport& e) {
  const EltwiseParameter& p = e.param().eltwise_param();
  std::vector<std::string> in = e.inputs;
  if (p.operation() == EltwiseParameter::PROD) {
    std::string product = in[0];
    for (size_t i = 1; i < in.size(); ++i) {
      const bool last = i + 1 == in.size();
      const std::string out = last ? e.Output(0) : e.graph->Temporary(e.Name("product"));
      e.Node("Mul", {product, in[i]}, {out}, last ? "" : "product");
      product = out;
    }
    return Status::Ok();
  }
  if (p.operation() == EltwiseParameter::SUM) {
    for (int i = 0; i < p.coeff_size(); ++i) {
      if (p.coeff(i) == 1.0f) continue;
      const std::string what = "coeff" + std::to_string(i);
      const std::string scaled = e.graph->Temporary(e.Name(what));
      e.Node("Mul", {in[i], e.graph->Scalar(e.Name(what), p.coeff(i))}, {scaled}, what);
      in[i] = scaled;
    }
  }
  e.Node(p.operation() == EltwiseParameter::SUM ? "Sum" : "Max", in, {e.Output(0)});
  return Status::Ok();
}

// x * s + b (Scale) or x + b (Bias), lined up with x's axes from `axis` on. The first operand
// (s of a Scale, b of a Bias) is bottom 1 when there is one; the others are learned blobs, in
// order.
Status ExportAffine(LayerExport& e, bool scale, int axis_param, bool bias_term) {
  const int rank = e.bottom[0]->num_axes();
  const int axis = e.bottom[0]->CanonicalAxisIndex(axis_param);
  // A learned scale or bias has a fixed shape, which includes the batch when axis is 0.
  if (!e.layer.blobs().empty()) DT_RETURN_IF_ERROR(e.RequireNotBatchAxis(axis));
  int blob = 0;
  std::string value = e.inputs[0];
  auto apply = [&](const std::string& op, const std::string& what, bool first, bool last) {
    std::string operand;
    if (first && e.bottom.size() > 1) {
      const std::vector<int64_t> dims = BroadcastDims(Dims(*e.bottom[1]), axis, rank);
      operand = e.graph->Temporary(e.Name(what));
      e.Node("Reshape", {e.inputs[1], e.graph->Shape(e.Name(what + "_shape"), dims, axis == 0)},
             {operand}, what + "_reshape");
    } else {
      const Tensor& t = *e.layer.blobs()[blob++];
      operand = e.graph->Weights(e.Name(what), t, BroadcastDims(Dims(t), axis, rank));
    }
    const std::string out = last ? e.Output(0) : e.graph->Temporary(e.Name(what + "d"));
    e.Node(op, {value, operand}, {out}, last ? "" : what);
    value = out;
  };
  if (scale) apply("Mul", "scale", true, !bias_term);
  if (bias_term) apply("Add", "bias", !scale, true);
  return Status::Ok();
}

// The Scale right after a BatchNorm that reads its top (in place or not; a Split would stand
// between them if anything else read it) with a learned per-channel scale: folded into the
// BatchNormalization node. Null when there is none.
const Layer* FoldableScale(const LayerExport& e) {
  const Net& net = e.graph->net();
  const int next = e.index + 1;
  if (next >= static_cast<int>(net.layers().size())) return nullptr;
  const Layer& scale = *net.layers()[next];
  if (std::string(scale.type()) != "Scale" || net.bottom_vecs()[next].size() != 1 ||
      net.bottom_vecs()[next][0] != e.top[0]) {
    return nullptr;
  }
  const Tensor& s = *scale.blobs()[0];
  const int axis = e.top[0]->CanonicalAxisIndex(scale.layer_param().scale_param().axis());
  return axis == 1 && s.num_axes() == 1 && s.count() == e.top[0]->shape(1) ? &scale : nullptr;
}

// BatchNorm with the stored statistics (mean = blob 0 / factor, variance = blob 1 / factor) as
// ONNX's BatchNormalization, whose scale and bias are the BatchNorm's own (Intel Caffe's blobs 3
// and 4), else the folded Scale's, else 1 and 0; Intel Caffe's relu adds a Relu node after it.
Status ExportBatchNorm(LayerExport& e) {
  const BatchNormParameter& p = e.param().batch_norm_param();
  if (p.has_use_global_stats() && !p.use_global_stats()) {
    return e.Refuse("use_global_stats: false normalises by each batch's own statistics");
  }
  if (e.bottom[0]->num_axes() < 2) return e.Refuse("its bottom has fewer than 2 axes");
  const auto& blobs = e.layer.blobs();
  const float factor = blobs[2]->data()[0] == 0.0f ? 0.0f : 1.0f / blobs[2]->data()[0];
  const int64_t channels = e.bottom[0]->shape(1);
  std::vector<float> mean(channels), variance(channels);
  for (int64_t c = 0; c < channels; ++c) {
    mean[c] = blobs[0]->data()[c] * factor;
    variance[c] = blobs[1]->data()[c] * factor;
  }
  std::string gamma, beta;
  std::string output;
  const bool own = blobs.size() > 3;
  if (own) {
    gamma = e.graph->Weights(e.Name("gamma"), *blobs[3]);
    beta = blobs.size() > 4
               ? e.graph->Weights(e.Name("beta"), *blobs[4])
               : e.graph->Floats(e.Name("beta"), {channels}, std::vector<float>(channels, 0.0f));
    output = e.Output(0);
  } else if (const Layer* scale = p.relu() ? nullptr : FoldableScale(e)) {
    gamma = e.graph->Weights(scale->name() + "/scale", *scale->blobs()[0]);
    beta = scale->layer_param().scale_param().bias_term()
               ? e.graph->Weights(scale->name() + "/bias", *scale->blobs()[1])
               : e.graph->Floats(scale->name() + "/bias", {channels},
                                 std::vector<float>(channels, 0.0f));
    e.covers = 2;
    output = e.graph->TopValue(e.index + 1, 0);
  } else {
    gamma = e.graph->Floats(e.Name("scale"), {channels}, std::vector<float>(channels, 1.0f));
    beta = e.graph->Floats(e.Name("bias"), {channels}, std::vector<float>(channels, 0.0f));
    output = e.Output(0);
  }
  const std::string final_output = output;
  if (p.relu()) output = e.graph->Temporary(e.Name("normalized"));
  onnx::NodeProto* node =
      e.Node("BatchNormalization",
             {e.inputs[0], gamma, beta, e.graph->Floats(e.Name("mean"), {channels}, mean),
              e.graph->Floats(e.Name("variance"), {channels}, variance)},
             {output});
  SetAttribute(node, "epsilon", p.eps());
  if (p.relu()) e.Node("Relu", {output}, {final_output}, "relu");
  return Status::Ok();
}

// MVN: (x - mean) / (sqrt(mean of (x - mean)^2) + eps) over each channel's plane (or over
// channels and planes together); without normalize_variance, x - mean.
Status ExportMVN(LayerExport& e) {
  const MVNParameter& p = e.param().mvn_param();
  std::vector<int64_t> axes;
  for (int a = p.across_channels() ? 1 : 2; a < e.bottom[0]->num_axes(); ++a) axes.push_back(a);
  auto mean_of = [&](const std::string& x, const std::string& what) {
    const std::string mean = e.graph->Temporary(e.Name(what));
    onnx::NodeProto* node = e.Node("ReduceMean", {x}, {mean}, what);
    SetAttribute(node, "axes", axes);
    SetAttribute(node, "keepdims", int64_t{1});
    return mean;
  };
  const std::string& x = e.inputs[0];
  const std::string mean = mean_of(x, "mean");
  const bool divide = p.normalize_variance();
  const std::string centred = divide ? e.graph->Temporary(e.Name("centred")) : e.Output(0);
  e.Node("Sub", {x, mean}, {centred}, divide ? "centre" : "");
  if (!divide) return Status::Ok();
  const std::string squares = e.graph->Temporary(e.Name("squares"));
  e.Node("Mul", {centred, centred}, {squares}, "square");
  const std::string deviation = e.graph->Temporary(e.Name("deviation"));
  e.Node("Sqrt", {mean_of(squares, "variance")}, {deviation}, "sqrt");
  const std::string divisor = e.graph->Temporary(e.Name("divisor"));
  e.Node("Add", {deviation, e.graph->Scalar(e.Name("eps"), p.eps())}, {divisor}, "eps");
  e.Node("Div", {centred, divisor}, {e.Output(0)});
  return Status::Ok();
}

}  // namespace

void AddElementwiseExporters(ExporterTable* table) {
  (*table)["ReLU"] = ExportReLU;
  (*table)["PReLU"] = ExportPReLU;
  (*table)["Sigmoid"] = UnaryExporter("Sigmoid");
  (*table)["TanH"] = UnaryExporter("Tanh");
  (*table)["AbsVal"] = UnaryExporter("Abs");
  (*table)["BNLL"] = UnaryExporter("Softplus");  // log(1 + e^x)
  (*table)["ELU"] = [](LayerExport& e) {
    SetAttribute(Unary(e, "Elu"), "alpha", e.param().elu_param().alpha());
    return Status::Ok();
  };
  (*table)["Power"] = ExportPower;
  (*table)["Exp"] = ExportExp;
  (*table)["Log"] = ExportLog;
  (*table)["Threshold"] = ExportThreshold;
  (*table)["Clip"] = ExportClip;
  (*table)["Swish"] = ExportSwish;
  (*table)["Eltwise"] = ExportEltwise;
  (*table)["Scale"] = [](LayerExport& e) {
    const ScaleParameter& p = e.param().scale_param();
    return ExportAffine(e, true, p.axis(), p.bias_term());
  };
  (*table)["Bias"] = [](LayerExport& e) {
    return ExportAffine(e, false, e.param().bias_param().axis(), true);
  };
  (*table)["BatchNorm"] = ExportBatchNorm;
  (*table)["MVN"] = ExportMVN;
}

}  // namespace dtrain
