// The oracle harness: every entry of every op's implementation list (kernels/<op>.cc, as
// kernels/listed_implementations.h lists them), forced one at a time, computes for every layer
// configuration and shape that the shipped models and BVLC Caffe's model files use (batch 2) the
// same forward outputs, input gradients and (accumulated) parameter gradients as the op's
// reference entry, on random inputs, within a relative error of 1e-4 (max |fast - reference| /
// max |reference|). An entry may decline a configuration; one that no entry but the reference
// accepts is a failure (except Eltwise's PROD and MAX, which only the reference computes).
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include "core/proto_io.h"
#include "kernels/listed_implementations.h"
#include "layers/registry.h"
#include "net/net.h"
#include "testing/caffe_nets.h"

namespace dtrain {
namespace {

constexpr float kTolerance = 1e-4f;

bool ParseTextProto(const std::string& text, LayerParameter* param) {
  return google::protobuf::TextFormat::ParseFromString(text, param);
}

// The ops compared: those whose list holds a reference entry, named as their layer types are
// (the fusion op ConvBatchNorm has none; tests/net/fusion_test.cc compares it by nets).
std::set<std::string> ComparedOps() {
  std::set<std::string> ops;
  for (const std::string& op : kernels::ListedOps()) {
    for (const kernels::ListedImplementation& entry : kernels::ListedImplementations(op)) {
      if (entry.engine == Engine::kReference) ops.insert(op);
    }
  }
  return ops;
}

// One layer configuration to compare: its parameters and bottom shapes, and where it was seen.
struct Case {
  LayerParameter param;
  std::vector<std::vector<int>> bottom_shapes;
  std::string where;
};

// The parameters that define the computation (not the layer's place in a net).
LayerParameter Computation(const LayerParameter& layer) {
  LayerParameter p(layer);
  p.clear_bottom();
  p.clear_top();
  p.clear_include();
  p.clear_exclude();
  p.clear_phase();
  p.clear_propagate_down();
  p.clear_loss_weight();
  p.clear_param();
  p.clear_engine();
  p.set_name("layer");
  return p;
}

// Unique configurations over every model file of `files` whose layer types are all supported.
std::vector<Case> CollectCases(const testing::TempDir& dir, const std::vector<std::string>& files) {
  testing::CaffeNetBuilder builder(dir);
  const std::set<std::string> compared = ComparedOps();
  std::map<std::string, Case> cases;
  for (const std::string& path : files) {
    NetParameter net;
    std::string missing;
    if (!ReadTextProto(path, &net).ok() || net.layers_size() > 0 ||
        !testing::AllTypesSupported(net, &missing)) {
      continue;
    }
    builder.Redirect(&net);
    testing::SetBatchSize(&net, 2);
    for (const NetState& state : testing::BuildStates(net)) {
      const Phase phase = state.phase();
      auto built = Net::Create(net, state, 1, "REFERENCE");
      if (!built.ok()) {
        ADD_FAILURE() << path << ": " << built.status().message();
        continue;
      }
      const Net& n = **built;
      for (size_t i = 0; i < n.layers().size(); ++i) {
        const Layer& layer = *n.layers()[i];
        if (!compared.count(layer.type())) continue;
        Case c{Computation(layer.layer_param()), {}, path + " / " + layer.name()};
        if (c.param.type() == "BatchNorm" && !c.param.batch_norm_param().has_use_global_stats()) {
          c.param.mutable_batch_norm_param()->set_use_global_stats(phase == TEST);
        }
        std::string key = c.param.SerializeAsString();
        for (const Tensor* bottom : n.bottom_vecs()[i]) {
          c.bottom_shapes.push_back(bottom->shape());
          key += "|" + bottom->ShapeString();
        }
        cases.emplace(key, std::move(c));
      }
    }
  }
  std::vector<Case> out;
  for (auto& [key, c] : cases) out.push_back(std::move(c));
  return out;
}

// Configurations the model files lack but users write: Eltwise SUM (ResNet-style), dilation,
// groups with padding and stride, padded average pooling, leaky ReLU, BatchNorm in both modes,
// softmax over an inner axis, transposed and bias-free inner products, concat on other axes.
std::vector<Case> ExtraCases() {
  const std::vector<std::pair<std::string, std::vector<std::vector<int>>>> specs = {
      {R"(type: "Eltwise" eltwise_param { operation: SUM })", {{2, 16, 7, 7}, {2, 16, 7, 7}}},
      {R"(type: "Eltwise" eltwise_param { operation: SUM coeff: 0.5 coeff: -2 coeff: 1 })",
       {{3, 5, 4, 3}, {3, 5, 4, 3}, {3, 5, 4, 3}}},
      {R"(type: "Convolution" convolution_param { num_output: 12 kernel_size: 3 dilation: 2
          pad: 2 weight_filler { type: "gaussian" } })",
       {{2, 6, 11, 9}}},
      {R"(type: "Convolution" convolution_param { num_output: 8 kernel_h: 3 kernel_w: 5
          stride_h: 2 stride_w: 1 pad_h: 1 pad_w: 2 group: 4 bias_term: false })",
       {{2, 12, 10, 13}}},
      {R"(type: "Convolution" convolution_param { num_output: 16 kernel_size: 3 dilation: 3
          group: 2 stride: 2 })",
       {{1, 4, 17, 17}}},
      // 3x3 stride 1 in training: Winograd with AVX-512, here with odd sizes and no padding.
      {R"(type: "Convolution" convolution_param { num_output: 7 kernel_size: 3
          weight_filler { type: "gaussian" } bias_filler { type: "gaussian" } })",
       {{3, 5, 9, 11}}},
      // Output channels in no whole 16-channel block: channels-last (nhwc) with AVX-512.
      {R"(type: "Convolution" convolution_param { num_output: 24 kernel_size: 3 pad: 1 stride: 2
          weight_filler { type: "gaussian" } })",
       {{2, 10, 9, 9}}},
      {R"(type: "Pooling" pooling_param { pool: AVE kernel_size: 3 stride: 1 pad: 1 })",
       {{2, 10, 9, 9}}},
      {R"(type: "Pooling" pooling_param { pool: MAX kernel_size: 3 stride: 2 pad: 1 })",
       {{2, 10, 10, 10}}},
      {R"(type: "Pooling" pooling_param { pool: AVE global_pooling: true })", {{2, 10, 6, 5}}},
      {R"(type: "Pooling" pooling_param { pool: MAX kernel_size: 2 stride: 3
          round_mode: FLOOR })",
       {{2, 3, 11, 11}}},
      {R"(type: "ReLU" relu_param { negative_slope: 0.1 })", {{2, 3, 5, 5}}},
      {R"(type: "LRN" lrn_param { local_size: 3 alpha: 0.5 beta: 0.75 k: 2 })", {{2, 7, 5, 5}}},
      {R"(type: "LRN" lrn_param { local_size: 5 alpha: 0.2 norm_region: WITHIN_CHANNEL })",
       {{2, 3, 6, 6}}},
      {R"(type: "BatchNorm" batch_norm_param { use_global_stats: false })", {{4, 6, 3, 3}}},
      {R"(type: "BatchNorm" batch_norm_param { use_global_stats: true eps: 0.001 })",
       {{4, 6, 3, 3}}},
      {R"(type: "BatchNorm" batch_norm_param { use_global_stats: false })", {{8, 5}}},
      {R"(type: "BatchNorm" batch_norm_param { use_global_stats: false })", {{2, 24, 5, 3}}},
      {R"(type: "BatchNorm" batch_norm_param { use_global_stats: true })", {{3, 16, 4, 4}}},
      {R"(type: "Softmax" softmax_param { axis: 1 })", {{2, 4, 3, 5}}},
      {R"(type: "Softmax" softmax_param { axis: -1 })", {{3, 2, 7}}},
      {R"(type: "InnerProduct" inner_product_param { num_output: 7 transpose: true })",
       {{3, 4, 2, 2}}},
      {R"(type: "InnerProduct" inner_product_param { num_output: 5 bias_term: false axis: 2 })",
       {{2, 3, 6}}},
      {R"(type: "Concat" concat_param { axis: 0 })", {{2, 3, 4}, {1, 3, 4}}},
      {R"(type: "Concat" concat_param { axis: 2 })", {{2, 3, 4, 2}, {2, 3, 1, 2}, {2, 3, 5, 2}}},
      // Along channels in whole blocks (the blocked path), and with an input of 8 channels (whole
      // blocks only with AVX2's 8-channel blocks).
      {R"(type: "Concat")", {{2, 16, 3, 3}, {2, 32, 3, 3}}},
      {R"(type: "Concat")", {{2, 16, 3, 3}, {2, 8, 3, 3}, {2, 16, 3, 3}}},
  };
  std::vector<Case> cases;
  for (const auto& [prototxt, shapes] : specs) {
    Case c;
    EXPECT_TRUE(ParseTextProto("name: \"extra\" " + prototxt, &c.param)) << prototxt;
    c.bottom_shapes = shapes;
    c.where = "extra case " + std::to_string(cases.size());
    cases.push_back(std::move(c));
  }
  return cases;
}

void FillUniform(std::mt19937* gen, float* data, int64_t n, float lo = -1.f, float hi = 1.f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < n; ++i) data[i] = dist(*gen);
}

double RelativeError(const float* fast, const float* reference, int64_t n) {
  double max_diff = 0, max_ref = 0;
  for (int64_t i = 0; i < n; ++i) {
    max_diff = std::max(max_diff, std::abs(static_cast<double>(fast[i]) - reference[i]));
    max_ref = std::max(max_ref, std::abs(static_cast<double>(reference[i])));
  }
  return max_ref > 0 ? max_diff / max_ref : max_diff;
}

// A layer with its own bottoms and tops.
struct Instance {
  std::unique_ptr<Layer> layer;
  std::vector<Tensor> bottoms, tops;
  TensorVec bottom_ptrs, top_ptrs;
};

Instance Make(const Case& c, const std::string& engine) {
  Instance in;
  LayerContext context;
  context.phase = TRAIN;
  context.seed = 7;
  context.engine = engine;
  auto layer = CreateLayer(c.param, context);
  EXPECT_TRUE(layer.ok()) << layer.status().message();
  if (!layer.ok()) return in;
  in.layer = std::move(layer).value();
  for (const auto& shape : c.bottom_shapes) in.bottoms.emplace_back(shape);
  in.tops.resize(std::max(1, c.param.top_size()));
  for (Tensor& t : in.bottoms) in.bottom_ptrs.push_back(&t);
  for (Tensor& t : in.tops) in.top_ptrs.push_back(&t);
  return in;
}

// A case's reference run: its inputs (random, from one seed), and the layer that computed from
// them what each entry must match.
struct ReferenceRun {
  Instance ref;
  std::vector<Tensor> params_before;  // the parameters (data and accumulated gradients) it began
  std::vector<Tensor> top_diffs;      // the gradients its backward pass received
};

Tensor CopyOf(const Tensor& t) {
  Tensor copy(t.shape());
  copy.CopyFrom(t, /*copy_diff=*/true);
  return copy;
}

bool RunReference(const Case& c, ReferenceRun* run) {
  run->ref = Make(c, "REFERENCE");
  Instance& ref = run->ref;
  if (!ref.layer) return false;
  std::mt19937 gen(11);
  for (Tensor& bottom : ref.bottoms) FillUniform(&gen, bottom.mutable_data(), bottom.count());
  const Status setup = ref.layer->Setup(ref.bottom_ptrs, ref.top_ptrs);
  EXPECT_TRUE(setup.ok()) << setup.message();
  if (!setup.ok()) return false;
  // Parameters: random; BatchNorm's statistics must stay valid (variance > 0).
  auto& blobs = ref.layer->blobs();
  for (size_t b = 0; b < blobs.size(); ++b) {
    Tensor& blob = *blobs[b];
    const bool bn = c.param.type() == "BatchNorm";
    FillUniform(&gen, blob.mutable_data(), blob.count(), bn && b == 1 ? 0.5f : -1.f,
                bn && b == 1 ? 1.5f : 1.f);
    if (bn && b == 2) blob.SetData(1.f);
    FillUniform(&gen, blob.mutable_diff(), blob.count());  // checks that gradients accumulate
    run->params_before.push_back(CopyOf(blob));
  }
  float loss;
  EXPECT_TRUE(ref.layer->Forward(ref.bottom_ptrs, ref.top_ptrs, &loss).ok());
  for (Tensor& top : ref.tops) {
    FillUniform(&gen, top.mutable_diff(), top.count());
    run->top_diffs.push_back(CopyOf(top));
  }
  ref.layer->Backward(ref.top_ptrs, std::vector<bool>(ref.bottoms.size(), true), ref.bottom_ptrs);
  return true;
}

// Runs one case on one entry of its op's list, forced, as a user asking for the entry's engine
// would get it were it listed first, and compares every output with the reference run. Returns
// the entry's report, or "" when the entry declines the case.
std::string CompareEntry(const Case& c, const kernels::ListedImplementation& entry,
                         const ReferenceRun& run) {
  SCOPED_TRACE(c.where + " (" + c.param.type() + ", implementation " + entry.family + ")");
  kernels::ScopedForcedImplementation forced(c.param.type(), entry.family);
  Instance fast = Make(c, EngineName(entry.engine));
  const Instance& ref = run.ref;
  if (!fast.layer) return "";
  for (size_t i = 0; i < fast.bottoms.size(); ++i) fast.bottoms[i].CopyFrom(ref.bottoms[i]);
  const Status setup = fast.layer->Setup(fast.bottom_ptrs, fast.top_ptrs);
  if (!setup.ok()) {
    EXPECT_GT(forced.declined(), 0) << setup.message();
    return "";
  }
  for (size_t b = 0; b < run.params_before.size(); ++b) {
    fast.layer->blobs()[b]->CopyFrom(run.params_before[b], /*copy_diff=*/true);
  }
  float loss;
  EXPECT_TRUE(fast.layer->Forward(fast.bottom_ptrs, fast.top_ptrs, &loss).ok());
  for (size_t t = 0; t < ref.tops.size(); ++t) {
    EXPECT_LE(RelativeError(fast.tops[t].data(), ref.tops[t].data(), ref.tops[t].count()),
              kTolerance)
        << "forward, top " << t;
    const Tensor& diff = run.top_diffs[t];
    std::copy(diff.diff(), diff.diff() + diff.count(), fast.tops[t].mutable_diff());
  }
  const std::vector<bool> propagate(ref.bottoms.size(), true);
  fast.layer->Backward(fast.top_ptrs, propagate, fast.bottom_ptrs);
  for (size_t i = 0; i < ref.bottoms.size(); ++i) {
    EXPECT_LE(RelativeError(fast.bottoms[i].diff(), ref.bottoms[i].diff(), ref.bottoms[i].count()),
              kTolerance)
        << "backward, bottom " << i;
  }
  const auto& ref_blobs = ref.layer->blobs();
  for (size_t b = 0; b < ref_blobs.size(); ++b) {
    const Tensor& r = *ref_blobs[b];
    EXPECT_LE(RelativeError(fast.layer->blobs()[b]->data(), r.data(), r.count()), kTolerance)
        << "parameter " << b << " data (running statistics)";
    EXPECT_LE(RelativeError(fast.layer->blobs()[b]->diff(), r.diff(), r.count()), kTolerance)
        << "parameter " << b << " gradient";
  }
  EXPECT_EQ(forced.accepted(), 1);
  return fast.layer->engine_report();
}

// How many cases each entry ran, by "op/family".
using RunsByEntry = std::map<std::string, int>;

// Compares every case on every entry of its op's list but the reference; a case that no such
// entry accepts is a failure (Eltwise's PROD and MAX excepted). Prints and returns the runs.
RunsByEntry CompareEveryEntry(const std::vector<Case>& cases) {
  RunsByEntry runs;
  for (const Case& c : cases) {
    ReferenceRun run;
    if (!RunReference(c, &run)) continue;
    std::string reports;
    for (const kernels::ListedImplementation& entry :
         kernels::ListedImplementations(c.param.type())) {
      if (entry.engine == Engine::kReference) continue;
      const std::string report = CompareEntry(c, entry, run);
      if (report.empty()) continue;
      ++runs[c.param.type() + "/" + entry.family];
      reports += (reports.empty() ? "" : "; ") + report;
    }
    if (reports.empty() && !(c.param.type() == "Eltwise" &&
                             c.param.eltwise_param().operation() != EltwiseParameter::SUM)) {
      ADD_FAILURE() << c.where << " (" << c.param.type()
                    << ") ran on no implementation but the reference";
    }
  }
  std::cout << cases.size() << " layer configurations compared; runs by implementation:";
  for (const auto& [entry, n] : runs) std::cout << " " << entry << " " << n;
  std::cout << "\n";
  return runs;
}

TEST(OnednnAgreement, ExtraConfigurationsMatchTheReference) {
  const RunsByEntry runs = CompareEveryEntry(ExtraCases());
  // Each entry, wherever it is listed, is tested on some case.
  for (const std::string& op : ComparedOps()) {
    for (const kernels::ListedImplementation& entry : kernels::ListedImplementations(op)) {
      if (entry.engine == Engine::kReference) continue;
      const auto it = runs.find(op + "/" + entry.family);
      EXPECT_TRUE(it != runs.end() && it->second > 0)
          << "no extra case runs " << op << "'s " << entry.title;
    }
  }
}

// The lists themselves: every op the harness compares lists its reference entry last, and the
// entries the docs name (docs/engines.md) are there, in their order.
TEST(OnednnAgreement, ListsNameTheirEntriesInOrder) {
  EXPECT_EQ(ComparedOps(),
            (std::set<std::string>{"BatchNorm", "Concat", "Convolution", "Eltwise", "InnerProduct",
                                   "LRN", "Pooling", "ReLU", "Softmax"}));
  for (const std::string& op : ComparedOps()) {
    EXPECT_EQ(kernels::ListedImplementations(op).back().family, "reference") << op;
  }
  auto families = [](const std::string& op) {
    std::vector<std::string> names;
    for (const auto& entry : kernels::ListedImplementations(op)) names.push_back(entry.family);
    return names;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(families("BatchNorm"), (Names{"blocked", "onednn", "reference"}));
  EXPECT_EQ(families("Pooling"), (Names{"onednn", "blocked", "reference"}));
  EXPECT_EQ(families("ConvBatchNorm"), (Names{"onednn", "blocked"}));
}

TEST(OnednnAgreement, EveryShippedModelLayerMatchesTheReference) {
  testing::TempDir dir;
  const std::vector<Case> cases = CollectCases(dir, testing::ShippedNetFiles());
  ASSERT_GT(cases.size(), 40u);  // LeNet, the CIFAR-10 nets and GoogLeNet
  CompareEveryEntry(cases);
}

TEST(OnednnAgreement, EveryBvlcModelLayerMatchesTheReference) {
  if (const std::string missing = testing::CaffeModelsMissing(); !missing.empty()) {
    GTEST_SKIP() << missing;
  }
  testing::TempDir dir;
  const std::vector<Case> cases =
      CollectCases(dir, testing::NetFilesUnder(testing::CaffeModelsDir()));
  ASSERT_GT(cases.size(), 100u);  // the BVLC models hold well over a hundred
  const RunsByEntry runs = CompareEveryEntry(cases);
  for (const std::string& op : ComparedOps()) {
    if (op == "Eltwise") continue;  // no BVLC model has one; ExtraConfigurations covers it
    int fast = 0;
    for (const auto& [entry, n] : runs) fast += entry.rfind(op + "/", 0) == 0 ? n : 0;
    EXPECT_GT(fast, 0) << "no model exercises a fast " << op;
  }
}

}  // namespace
}  // namespace dtrain
