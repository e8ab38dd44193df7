// Which BatchNorm layers learn a scale and shift, decided by Intel Caffe's rules
// (net/intel_batch_norm.h): the plan on its own (exact counts, rewritten fields, the log line,
// refusals), and nets built with it: parameters, the zero-gamma filler passed to the Scale, the
// round trip of the new blobs through a .caffemodel, and a .caffemodel as Intel Caffe writes it
// (the BatchNorm holding its merged Scale's blobs) loading into BatchNorm + Scale.
#include "net/intel_batch_norm.h"

#include <gtest/gtest.h>

#include <string>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/layer_params.pb.h"

namespace dtrain {
namespace {

NetParameter Parse(const std::string& text) {
  NetParameter param;
  const Status parsed = ParseTextProto(text, "net", &param);
  EXPECT_TRUE(parsed.ok()) << parsed.message();
  return param;
}

const char kData[] = R"(
  layer { name: "data" type: "DummyData" top: "x"
          dummy_data_param { shape { dim: 4 dim: 3 dim: 2 dim: 2 }
                             data_filler { type: "gaussian" std: 1 } } }
)";

const LayerParameter& LayerNamed(const NetParameter& net, const std::string& name) {
  for (const LayerParameter& layer : net.layer()) {
    if (layer.name() == name) return layer;
  }
  ADD_FAILURE() << "no layer " << name;
  return net.layer(0);
}

TEST(IntelBatchNormPlan, DecidesAsIntelCaffeDoes) {
  const NetParameter net = Parse(std::string("bn_stats_batch_size: 2\n") + kData + R"(
    layer { name: "alone" type: "BatchNorm" bottom: "x" top: "a" }
    layer { name: "merged" type: "BatchNorm" bottom: "a" top: "b"
            batch_norm_param { stats_batch_size: 4 filler { value: 0 } } }
    layer { name: "scale" type: "Scale" bottom: "b" top: "b"
            scale_param { bias_term: true filler { type: "uniform" min: 1 max: 2 } } }
    layer { name: "caffe_enum" type: "BatchNorm" bottom: "b" top: "c"
            batch_norm_param { engine: CAFFE } }
    layer { name: "caffe_string" type: "BatchNorm" bottom: "c" top: "d" engine: "CAFFE" }
    layer { name: "off" type: "BatchNorm" bottom: "d" top: "e"
            batch_norm_param { use_weight_bias: false } }
    layer { name: "mkl" type: "BatchNorm" bottom: "e" top: "f" engine: "MKLDNN:CPU" }
  )");
  auto plan = PlanIntelBatchNorm(net);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->own, 2);  // "alone" and "mkl"
  EXPECT_EQ(plan->in_scale, 1);
  EXPECT_EQ(plan->caffe, 2);
  EXPECT_EQ(plan->disabled, 1);
  EXPECT_EQ(plan->sub_batches, 6);
  const NetParameter& out = plan->param;
  auto weight_bias = [&](const std::string& name) {
    const BatchNormParameter& p = LayerNamed(out, name).batch_norm_param();
    EXPECT_TRUE(p.has_use_weight_bias()) << name;
    return p.use_weight_bias();
  };
  EXPECT_TRUE(weight_bias("alone"));
  EXPECT_FALSE(weight_bias("merged"));
  EXPECT_FALSE(weight_bias("caffe_enum"));
  EXPECT_FALSE(weight_bias("caffe_string"));
  EXPECT_FALSE(weight_bias("off"));
  EXPECT_TRUE(weight_bias("mkl"));
  // The net's bn_stats_batch_size replaces the layer's, as Intel's ApplyBnStatsBatchSize.
  EXPECT_EQ(LayerNamed(out, "merged").batch_norm_param().stats_batch_size(), 2u);
  // The merged Scale is initialised by the BatchNorm's filler (zero gamma); its bias_filler,
  // which the BatchNorm does not set, stays the Scale's.
  const ScaleParameter& scale = LayerNamed(out, "scale").scale_param();
  EXPECT_EQ(scale.filler().type(), "constant");
  EXPECT_EQ(scale.filler().value(), 0.f);
  EXPECT_FALSE(scale.has_bias_filler());
  EXPECT_EQ(plan->merged_scale, (std::map<std::string, std::string>{{"merged", "scale"}}));
  EXPECT_EQ(plan->Summary(),
            "2 of 6 BatchNorm layer(s) learn a scale and shift of their own (Intel Caffe's MKLDNN "
            "BatchNorm, use_weight_bias true, no Scale after it); 1 leave them to the Scale after "
            "them; 2 run on engine CAFFE (none); 1 set use_weight_bias: false; 6 take statistics "
            "over sub-batches");
}

TEST(IntelBatchNormPlan, NetEngineCaffeMeansNoScaleAndAScaleBehindASplitIsNotMerged) {
  auto caffe = PlanIntelBatchNorm(Parse(std::string("engine: 'CAFFE'\n") + kData + R"(
    layer { name: "bn" type: "BatchNorm" bottom: "x" top: "a" })"));
  ASSERT_TRUE(caffe.ok());
  EXPECT_EQ(caffe->caffe, 1);
  // A Scale that is not the first reader of the BatchNorm's top is not merged: the BatchNorm
  // learns its own (Intel's rule), and the Scale stays.
  auto behind = PlanIntelBatchNorm(Parse(std::string("engine: 'MKLDNN'\n") + kData + R"(
    layer { name: "bn" type: "BatchNorm" bottom: "x" top: "a" }
    layer { name: "other" type: "ReLU" bottom: "a" top: "r" }
    layer { name: "scale" type: "Scale" bottom: "a" top: "s" })"));
  ASSERT_TRUE(behind.ok());
  EXPECT_EQ(behind->own, 1);
  EXPECT_EQ(behind->in_scale, 0);
  EXPECT_EQ(PlanIntelBatchNorm(Parse(kData))->Summary(), "");
}

TEST(IntelBatchNormPlan, ReluThatIntelIgnoresOrWouldOrderOtherwiseIsRefused) {
  auto caffe = PlanIntelBatchNorm(Parse(std::string(kData) + R"(
    layer { name: "bn" type: "BatchNorm" bottom: "x" top: "a"
            batch_norm_param { engine: CAFFE relu: true } })"));
  ASSERT_FALSE(caffe.ok());
  EXPECT_EQ(caffe.status().message(),
            "layer 'bn' (BatchNorm): relu: true on Intel Caffe's CAFFE engine, whose BatchNorm "
            "ignores it; remove relu, or the CAFFE engine to apply it");
  auto merged = PlanIntelBatchNorm(Parse(std::string(kData) + R"(
    layer { name: "bn" type: "BatchNorm" bottom: "x" top: "a" batch_norm_param { relu: true } }
    layer { name: "sc" type: "Scale" bottom: "a" top: "a" })"));
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find("layer 'bn' (BatchNorm): relu: true with the Scale "
                                           "'sc' after it"),
            std::string::npos)
      << merged.status().message();
}

std::unique_ptr<Net> Build(const std::string& text, Phase phase = TRAIN) {
  NetState state;
  state.set_phase(phase);
  auto net = Net::Create(Parse(text), state, 1, "");
  EXPECT_TRUE(net.ok()) << net.status().message();
  return net.ok() ? std::move(net).value() : nullptr;
}

const char kBnScale[] = R"(
  layer { name: "bn" type: "BatchNorm" bottom: "x" top: "y" batch_norm_param { filler { value: 0 } } }
  layer { name: "scale" type: "Scale" bottom: "y" top: "y" scale_param { bias_term: true } }
)";

TEST(IntelBatchNormNet, ZeroGammaOfTheBatchNormTakesEffectInTheScaleAfterIt) {
  auto net = Build(std::string(kData) + kBnScale);
  ASSERT_TRUE(net);
  const Layer* bn = net->layer_by_name("bn");
  const Layer* scale = net->layer_by_name("scale");
  EXPECT_EQ(bn->blobs().size(), 3u);  // BVLC's layout: the Scale holds gamma and beta
  ASSERT_EQ(scale->blobs().size(), 2u);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(scale->blobs()[0]->data()[c], 0.f);
  ASSERT_TRUE(net->Forward().ok());
  const Tensor& y = *net->blob_by_name("y");
  for (int64_t k = 0; k < y.count(); ++k) EXPECT_EQ(y.data()[k], 0.f);
}

TEST(IntelBatchNormNet, OwnScaleAndShiftAreLearnableAndRoundTripThroughACaffemodel) {
  const std::string text = std::string(kData) + R"(
    layer { name: "bn" type: "BatchNorm" bottom: "x" top: "y"
            batch_norm_param { filler { type: "uniform" min: 0.5 max: 2 }
                               bias_filler { type: "uniform" min: -1 max: 1 } } })";
  auto net = Build(text);
  ASSERT_TRUE(net);
  const Layer* bn = net->layer_by_name("bn");
  ASSERT_EQ(bn->blobs().size(), 5u);
  EXPECT_FALSE(bn->IsStatistic(3));  // gamma and beta are learned; blobs 0-2 are statistics
  EXPECT_FALSE(bn->IsStatistic(4));
  EXPECT_TRUE(bn->param_propagate_down(3));
  EXPECT_EQ(bn->layer_param().param(2).lr_mult(), 0.f);
  ASSERT_TRUE(net->Forward().ok());
  NetParameter saved;
  net->ToProto(&saved, false);
  const std::string path = ::testing::TempDir() + "/intel_bn.caffemodel";
  ASSERT_TRUE(WriteBinaryProtoAtomically(path, saved).ok());
  NetParameter read;
  ASSERT_TRUE(ReadBinaryProto(path, &read).ok());
  auto other = Build(text, TEST);
  ASSERT_TRUE(other);
  ASSERT_TRUE(other->CopyTrainedLayersFrom(read).ok());
  const Layer* copied = other->layer_by_name("bn");
  for (int b = 0; b < 5; ++b) {
    for (int64_t k = 0; k < bn->blobs()[b]->count(); ++k) {
      EXPECT_EQ(copied->blobs()[b]->data()[k], bn->blobs()[b]->data()[k]) << b << " " << k;
    }
  }
}

// Intel Caffe writes a BatchNorm with the Scale it merged as one layer of 5 blobs, no Scale.
NetParameter IntelWritten(int extra_blobs, int gamma_count) {
  NetParameter file;
  LayerParameter* bn = file.add_layer();
  bn->set_name("bn");
  bn->set_type("BatchNorm");
  for (int b = 0; b < 3 + extra_blobs; ++b) {
    Tensor blob(std::vector<int>{b == 2 ? 1 : b == 3 ? gamma_count : 3});
    for (int64_t k = 0; k < blob.count(); ++k) blob.mutable_data()[k] = 10.f * b + k + 1;
    blob.ToProto(bn->add_blobs(), false);
  }
  return file;
}

TEST(IntelBatchNormNet, AnIntelWrittenCaffemodelLoadsIntoBatchNormAndScale) {
  auto net = Build(std::string(kData) + kBnScale, TEST);
  ASSERT_TRUE(net);
  const Status s = net->CopyTrainedLayersFrom(IntelWritten(2, 3));
  ASSERT_TRUE(s.ok()) << s.message();
  const Layer* bn = net->layer_by_name("bn");
  const Layer* scale = net->layer_by_name("scale");
  EXPECT_EQ(bn->blobs()[1]->data()[2], 13.f);
  EXPECT_EQ(bn->blobs()[2]->data()[0], 21.f);
  EXPECT_EQ(scale->blobs()[0]->data()[0], 31.f);  // gamma
  EXPECT_EQ(scale->blobs()[1]->data()[2], 43.f);  // beta
}

TEST(IntelBatchNormNet, AnIntelWrittenCaffemodelOfWrongCountOrShapeNamesLayerAndBlob) {
  auto net = Build(std::string(kData) + kBnScale, TEST);
  ASSERT_TRUE(net);
  Status s = net->CopyTrainedLayersFrom(IntelWritten(1, 3));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "layer 'bn': the weights file has 4 parameter blob(s), Intel Caffe's layout of a "
            "BatchNorm with the Scale it merged; the net expects 3 and the Scale 'scale' 2 (5 "
            "in all)");
  s = net->CopyTrainedLayersFrom(IntelWritten(2, 5));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("layer 'bn' blob 3 (gamma, into the Scale 'scale' parameter 0): "),
            std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace dtrain

namespace dtrain {
namespace {

// The same BatchNorm text means different things in BVLC Caffe (no scale) and Intel Caffe (a
// learned scale and shift where no Scale follows): a net that names nothing of Intel Caffe's is
// read as BVLC's, and says so in its log line.
TEST(IntelBatchNormPlan, ANetThatNamesNothingOfIntelCaffeIsReadAsBvlcs) {
  const std::string layers = R"(
    layer { name: "bn" type: "BatchNorm" bottom: "x" top: "a" }
    layer { name: "bn2" type: "BatchNorm" bottom: "a" top: "b" }
    layer { name: "scale" type: "Scale" bottom: "b" top: "b" scale_param { bias_term: true } })";
  auto bvlc = PlanIntelBatchNorm(Parse(std::string(kData) + layers));
  ASSERT_TRUE(bvlc.ok());
  EXPECT_FALSE(bvlc->intel);
  EXPECT_EQ(bvlc->own, 0);
  EXPECT_FALSE(LayerNamed(bvlc->param, "bn").batch_norm_param().use_weight_bias());
  // An Intel-written .caffemodel of this net would hold the Scale's blobs in bn2's.
  EXPECT_EQ(bvlc->merged_scale, (std::map<std::string, std::string>{{"bn2", "scale"}}));
  EXPECT_EQ(bvlc->Summary(),
            "1 BatchNorm layer(s) with no Scale after them learn no scale or shift, as in BVLC "
            "Caffe: the net names nothing of Intel Caffe's, whose default engine would give them "
            "one (set the net's engine: \"MKLDNN\" for Intel Caffe's BatchNorm)");
  // Any field or value only Intel Caffe has makes the file Intel's.
  for (const std::string& mark :
       {std::string("engine: 'MKLDNN'\n"), std::string("bn_stats_batch_size: 4\n"),
        std::string("layer { name: 'd' type: 'Data' top: 'q' data_param { shuffle: false } }\n"),
        std::string("layer { name: 'p' type: 'Pooling' bottom: 'x' top: 'p' "
                    "pooling_param { engine: MKLDNN kernel_size: 1 } }\n"),
        std::string("layer { name: 'c' type: 'Convolution' bottom: 'x' top: 'c' "
                    "convolution_param { num_output: 1 kernel_size: 1 "
                    "weight_filler { type: 'msra' scale: 2 } } }\n")}) {
    auto intel = PlanIntelBatchNorm(Parse(mark + kData + layers));
    ASSERT_TRUE(intel.ok()) << mark;
    EXPECT_TRUE(intel->intel) << mark;
    EXPECT_EQ(intel->own, 1) << mark;
    EXPECT_EQ(intel->in_scale, 1) << mark;
  }
  // dtrain's own engine names and BVLC's fields are not Intel's.
  for (const std::string& bvlc_mark :
       {std::string("engine: 'ONEDNN'\n"), std::string("force_backward: true\n")}) {
    auto plan = PlanIntelBatchNorm(Parse(bvlc_mark + kData + layers));
    ASSERT_TRUE(plan.ok());
    EXPECT_FALSE(plan->intel) << bvlc_mark;
    EXPECT_EQ(plan->own, 0) << bvlc_mark;
  }
}

}  // namespace
}  // namespace dtrain
