#include "net/intel_batch_norm.h"

#include "net/intel_fields.h"
#include "proto/layer_params.pb.h"

namespace dtrain {
namespace {

// The engine an Intel engine string names: its first identifier ("MKLDNN:CPU" names MKLDNN).
std::string EngineWord(const std::string& engine) {
  const size_t start = engine.find_first_not_of(" \t");
  if (start == std::string::npos) return "";
  const size_t end = engine.find_first_of(" \t:,;", start);
  return engine.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

bool IsMkl(const std::string& word) { return word == "MKL2017" || word == "MKLDNN"; }

// Whether Intel Caffe builds `layer` as its MKL2017 or MKLDNN BatchNorm (else as CAFFE's):
// Net::Init gives a layer without an engine string the net's (MKL2017 and MKLDNN swap to the
// net's), then GetBatchNormLayer reads the enum, else that string; DEFAULT is CAFFE.
bool RunsOnMkl(const LayerParameter& layer, const std::string& net_engine) {
  const int engine = layer.batch_norm_param().engine();
  if (engine == BatchNormParameter::CAFFE) return false;
  if (engine == BatchNormParameter::MKL2017 || engine == BatchNormParameter::MKLDNN) return true;
  std::string name = layer.engine();
  if (name.empty() || (IsMkl(name) && IsMkl(net_engine))) name = net_engine;
  return IsMkl(EngineWord(name));
}

// Whether Intel's CompilationRuleRemoveScale treats `layer` as an MKL2017 / MKLDNN BatchNorm
// (it compares the strings whole, before Net::Init hands out the net's engine).
bool MergesScale(const LayerParameter& layer, const std::string& net_engine) {
  const BatchNormParameter& p = layer.batch_norm_param();
  const int engine = p.engine();
  return engine == BatchNormParameter::MKL2017 || engine == BatchNormParameter::MKLDNN ||
         (engine == BatchNormParameter::DEFAULT && !layer.has_engine() && IsMkl(net_engine)) ||
         (!p.has_engine() && IsMkl(layer.engine()));
}

// The first layer after `index` reading blob `top` (Intel's GetBlobConsumers), or -1.
int FirstConsumer(const NetParameter& net, int index, const std::string& top) {
  for (int j = index + 1; j < net.layer_size(); ++j) {
    for (const std::string& bottom : net.layer(j).bottom()) {
      if (bottom == top) return j;
    }
  }
  return -1;
}

}  // namespace

StatusOr<IntelBatchNormPlan> PlanIntelBatchNorm(const NetParameter& net) {
  IntelBatchNormPlan plan;
  plan.param = net;
  // Intel Caffe's default build names MKLDNN when the net names no engine; a file that says
  // nothing of Intel Caffe is BVLC Caffe's, whose BatchNorm is CAFFE's.
  plan.intel = WrittenForIntelCaffe(net);
  const std::string net_engine = !net.engine().empty() ? net.engine()
                                 : plan.intel          ? "MKLDNN"
                                                       : "CAFFE";
  for (int i = 0; i < plan.param.layer_size(); ++i) {
    LayerParameter& layer = *plan.param.mutable_layer(i);
    if (layer.type() != "BatchNorm") continue;
    BatchNormParameter& p = *layer.mutable_batch_norm_param();
    const std::string where = "layer '" + layer.name() + "' (BatchNorm): ";
    if (net.has_bn_stats_batch_size()) p.set_stats_batch_size(net.bn_stats_batch_size());
    if (p.stats_batch_size() > 0) ++plan.sub_batches;
    if (!RunsOnMkl(layer, net_engine)) {
      if (!plan.intel && !net.has_engine()) {
        // BVLC's BatchNorm; Intel Caffe would merge a Scale after it, so a .caffemodel Intel
        // wrote of this net holds that Scale's blobs in the BatchNorm's.
        const int next = layer.top_size() > 0 ? FirstConsumer(plan.param, i, layer.top(0)) : -1;
        const LayerParameter* scale = next >= 0 ? &plan.param.layer(next) : nullptr;
        if (scale && scale->type() == "Scale" && scale->bottom_size() == 1) {
          plan.merged_scale[layer.name()] = scale->name();
        } else {
          ++plan.bvlc_without_scale;
        }
      }
      if (p.relu()) {
        return InvalidArgument(where +
                               "relu: true on Intel Caffe's CAFFE engine, whose BatchNorm "
                               "ignores it; remove relu, or the CAFFE engine to apply it");
      }
      p.set_use_weight_bias(false);
      ++plan.caffe;
      continue;
    }
    if (!p.use_weight_bias()) {
      ++plan.disabled;
      continue;
    }
    const int next = layer.top_size() > 0 ? FirstConsumer(plan.param, i, layer.top(0)) : -1;
    LayerParameter* scale = next >= 0 ? plan.param.mutable_layer(next) : nullptr;
    if (scale && scale->type() == "Scale" && scale->bottom_size() == 1 &&
        MergesScale(layer, net_engine)) {
      if (p.relu()) {
        return InvalidArgument(where + "relu: true with the Scale '" + scale->name() +
                               "' after it: Intel Caffe merges that Scale into this BatchNorm "
                               "and applies the ReLU after it, dtrain keeps the Scale a layer of "
                               "its own; write the ReLU as a ReLU layer after the Scale");
      }
      ScaleParameter& sp = *scale->mutable_scale_param();
      if (p.has_filler()) *sp.mutable_filler() = p.filler();
      if (p.has_bias_filler() && sp.bias_term()) *sp.mutable_bias_filler() = p.bias_filler();
      p.set_use_weight_bias(false);
      plan.merged_scale[layer.name()] = scale->name();
      ++plan.in_scale;
      continue;
    }
    p.set_use_weight_bias(true);
    ++plan.own;
  }
  return plan;
}

std::string IntelBatchNormPlan::Summary() const {
  const int total = own + in_scale + caffe + disabled;
  if (total == 0) return "";
  if (!intel) {
    if (bvlc_without_scale == 0) return "";
    return std::to_string(bvlc_without_scale) +
           " BatchNorm layer(s) with no Scale after them learn no scale or shift, as in BVLC "
           "Caffe: the net names nothing of Intel Caffe's, whose default engine would give them "
           "one (set the net's engine: \"MKLDNN\" for Intel Caffe's BatchNorm)";
  }
  std::string line = std::to_string(own) + " of " + std::to_string(total) +
                     " BatchNorm layer(s) learn a scale and shift of their own (Intel Caffe's "
                     "MKLDNN BatchNorm, use_weight_bias true, no Scale after it)";
  if (in_scale > 0) {
    line += "; " + std::to_string(in_scale) + " leave them to the Scale after them";
  }
  if (caffe > 0) line += "; " + std::to_string(caffe) + " run on engine CAFFE (none)";
  if (disabled > 0) line += "; " + std::to_string(disabled) + " set use_weight_bias: false";
  if (sub_batches > 0) {
    line += "; " + std::to_string(sub_batches) + " take statistics over sub-batches";
  }
  return line;
}

}  // namespace dtrain
