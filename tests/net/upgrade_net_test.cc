// Caffe's upgrade rules (net/upgrade_net.h, solver/upgrade_solver.h): hand-written V0 and V1
// snippets against the exact current form, and the errors for files that cannot be converted.
#include "net/upgrade_net.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "core/proto_io.h"
#include "net/net.h"
#include "solver/upgrade_solver.h"

namespace dtrain {
namespace {

template <typename M>
M Parse(const std::string& text) {
  M m;
  const Status s = ParseTextProto(text, "snippet", &m);
  EXPECT_TRUE(s.ok()) << s.message();
  return m;
}

template <typename M>
void ExpectProtoEq(const M& expected, const M& actual) {
  google::protobuf::util::MessageDifferencer differ;
  std::string diff;
  differ.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differ.Compare(expected, actual)) << diff << "\nactual:\n" << actual.DebugString();
}

NetParameter Upgraded(const std::string& text, NetUpgrades* applied = nullptr) {
  auto out = UpgradeNet(Parse<NetParameter>(text), applied);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? *out : NetParameter();
}

std::string UpgradeError(const std::string& text) {
  auto out = UpgradeNet(Parse<NetParameter>(text));
  EXPECT_FALSE(out.ok());
  return out.ok() ? "" : out.status().message();
}

TEST(UpgradeNet, V1LayersBecomeCurrentLayers) {
  NetUpgrades applied;
  const NetParameter out = Upgraded(R"(
    name: "v1" force_backward: true
    layers { name: "conv1" type: CONVOLUTION bottom: "data" top: "conv1"
             blobs_lr: 1 blobs_lr: 2 weight_decay: 1 weight_decay: 0
             param: "w" param: "b" blob_share_mode: PERMISSIVE
             include { phase: TRAIN }
             convolution_param { num_output: 4 kernel_size: 3 } }
    layers { name: "relu" type: RELU bottom: "conv1" top: "conv1" exclude { stage: "x" }
             relu_param { negative_slope: 0.1 } }
    layers { name: "loss" type: SOFTMAX_LOSS bottom: "conv1" bottom: "label" top: "loss"
             loss_weight: 2 loss_param { ignore_label: 3 } }
    layers { name: "thr" type: THRESHOLD bottom: "conv1" top: "t" threshold_param { threshold: 0.5 } }
  )",
                                    &applied);
  ExpectProtoEq(Parse<NetParameter>(R"(
    name: "v1" force_backward: true
    layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
            param { name: "w" share_mode: PERMISSIVE lr_mult: 1 decay_mult: 1 }
            param { name: "b" lr_mult: 2 decay_mult: 0 }
            include { phase: TRAIN }
            convolution_param { num_output: 4 kernel_size: 3 } }
    layer { name: "relu" type: "ReLU" bottom: "conv1" top: "conv1" exclude { stage: "x" }
            relu_param { negative_slope: 0.1 } }
    layer { name: "loss" type: "SoftmaxWithLoss" bottom: "conv1" bottom: "label" top: "loss"
            loss_weight: 2 loss_param { ignore_label: 3 } }
    layer { name: "thr" type: "Threshold" bottom: "conv1" top: "t" threshold_param { threshold: 0.5 } }
  )"),
                out);
  EXPECT_EQ(applied.Describe(), "V1 layer syntax");
}

TEST(UpgradeNet, EveryV1TypeNameIsCaffes) {
  const std::pair<const char*, const char*> kNames[] = {
      {"ABSVAL", "AbsVal"},
      {"ACCURACY", "Accuracy"},
      {"ARGMAX", "ArgMax"},
      {"BNLL", "BNLL"},
      {"CONCAT", "Concat"},
      {"CONTRASTIVE_LOSS", "ContrastiveLoss"},
      {"CONVOLUTION", "Convolution"},
      {"DATA", "Data"},
      {"DECONVOLUTION", "Deconvolution"},
      {"DROPOUT", "Dropout"},
      {"DUMMY_DATA", "DummyData"},
      {"EUCLIDEAN_LOSS", "EuclideanLoss"},
      {"ELTWISE", "Eltwise"},
      {"EXP", "Exp"},
      {"FLATTEN", "Flatten"},
      {"HDF5_DATA", "HDF5Data"},
      {"HDF5_OUTPUT", "HDF5Output"},
      {"HINGE_LOSS", "HingeLoss"},
      {"IM2COL", "Im2col"},
      {"IMAGE_DATA", "ImageData"},
      {"INFOGAIN_LOSS", "InfogainLoss"},
      {"INNER_PRODUCT", "InnerProduct"},
      {"LRN", "LRN"},
      {"MEMORY_DATA", "MemoryData"},
      {"MULTINOMIAL_LOGISTIC_LOSS", "MultinomialLogisticLoss"},
      {"MVN", "MVN"},
      {"POOLING", "Pooling"},
      {"POWER", "Power"},
      {"RELU", "ReLU"},
      {"SIGMOID", "Sigmoid"},
      {"SIGMOID_CROSS_ENTROPY_LOSS", "SigmoidCrossEntropyLoss"},
      {"SILENCE", "Silence"},
      {"SOFTMAX", "Softmax"},
      {"SOFTMAX_LOSS", "SoftmaxWithLoss"},
      {"SPLIT", "Split"},
      {"SLICE", "Slice"},
      {"TANH", "TanH"},
      {"WINDOW_DATA", "WindowData"},
      {"THRESHOLD", "Threshold"}};  // NONE upgrades to no type: UpgradeNetErrors
  for (const auto& [v1, current] : kNames) {
    const NetParameter out = Upgraded(std::string("layers { name: \"l\" type: ") + v1 + " }");
    ASSERT_EQ(out.layer_size(), 1) << v1;
    EXPECT_EQ(out.layer(0).type(), current) << v1;
    EXPECT_TRUE(out.layer(0).has_type()) << v1;
  }
}

TEST(UpgradeNet, V1DataTransformationFieldsMoveToTransformParam) {
  NetUpgrades applied;
  const NetParameter out = Upgraded(R"(
    layers { name: "d" type: DATA top: "data"
             data_param { source: "db" batch_size: 4 scale: 0.5 mean_file: "m" crop_size: 2
                          mirror: true } }
    layers { name: "i" type: IMAGE_DATA top: "img" image_data_param { source: "l" crop_size: 3 } }
    layers { name: "w" type: WINDOW_DATA top: "win" window_data_param { source: "w" mirror: false } }
  )",
                                    &applied);
  ExpectProtoEq(Parse<NetParameter>(R"(
    layer { name: "d" type: "Data" top: "data"
            transform_param { scale: 0.5 mirror: true crop_size: 2 mean_file: "m" }
            data_param { source: "db" batch_size: 4 } }
    layer { name: "i" type: "ImageData" top: "img" transform_param { crop_size: 3 }
            image_data_param { source: "l" } }
    layer { name: "w" type: "WindowData" top: "win" transform_param { mirror: false }
            window_data_param { source: "w" } }
  )"),
                out);
  EXPECT_EQ(applied.Describe(), "V1 data transformation fields, V1 layer syntax");
}

TEST(UpgradeNet, V0PaddingFoldsIntoConvAndEveryFieldFindsItsParam) {
  NetUpgrades applied;
  const NetParameter out = Upgraded(R"(
    name: "v0"
    input: "data" input_dim: 1 input_dim: 3 input_dim: 8 input_dim: 8
    layers { layer { name: "pad1" type: "padding" pad: 2 } bottom: "data" top: "pad1" }
    layers { layer { name: "conv1" type: "conv" num_output: 4 kernelsize: 3 stride: 2 group: 1
                     biasterm: false weight_filler { type: "gaussian" std: 0.01 }
                     bias_filler { type: "constant" value: 0.2 } blobs_lr: 1 weight_decay: 1 }
             bottom: "pad1" top: "conv1" }
    layers { layer { name: "pool1" type: "pool" pool: AVE kernelsize: 2 stride: 2 pad: 1 }
             bottom: "conv1" top: "pool1" }
    layers { layer { name: "norm1" type: "lrn" local_size: 3 alpha: 0.1 beta: 0.5 k: 2 }
             bottom: "pool1" top: "norm1" }
    layers { layer { name: "drop" type: "dropout" dropout_ratio: 0.3 } bottom: "norm1" top: "norm1" }
    layers { layer { name: "fc" type: "innerproduct" num_output: 10 biasterm: true
                     weight_filler { type: "xavier" } bias_filler { type: "constant" value: 0.1 } }
             bottom: "norm1" top: "fc" }
    layers { layer { name: "prob" type: "softmax" } bottom: "fc" top: "prob" }
  )",
                                    &applied);
  ExpectProtoEq(Parse<NetParameter>(R"(
    name: "v0"
    layer { name: "input" type: "Input" top: "data"
            input_param { shape { dim: 1 dim: 3 dim: 8 dim: 8 } } }
    layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
            param { lr_mult: 1 decay_mult: 1 }
            convolution_param { num_output: 4 bias_term: false pad: 2 kernel_size: 3 group: 1
                                stride: 2 weight_filler { type: "gaussian" std: 0.01 }
                                bias_filler { type: "constant" value: 0.2 } } }
    layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
            pooling_param { pool: AVE kernel_size: 2 stride: 2 pad: 1 } }
    layer { name: "norm1" type: "LRN" bottom: "pool1" top: "norm1"
            lrn_param { local_size: 3 alpha: 0.1 beta: 0.5 k: 2 } }
    layer { name: "drop" type: "Dropout" bottom: "norm1" top: "norm1"
            dropout_param { dropout_ratio: 0.3 } }
    layer { name: "fc" type: "InnerProduct" bottom: "norm1" top: "fc"
            inner_product_param { num_output: 10 bias_term: true weight_filler { type: "xavier" }
                                  bias_filler { type: "constant" value: 0.1 } } }
    layer { name: "prob" type: "Softmax" bottom: "fc" top: "prob" }
  )"),
                out);
  EXPECT_EQ(applied.Describe(), "V0 layer syntax, V1 layer syntax, legacy input fields");
}

TEST(UpgradeNet, V0DataLayerFields) {
  const NetParameter out = Upgraded(R"(
    layers { layer { name: "data" type: "data" source: "db" batchsize: 8 meanfile: "mean"
                     cropsize: 4 mirror: true scale: 0.5 rand_skip: 3 } top: "data" top: "label" }
    layers { layer { name: "img" type: "images" source: "list" batchsize: 2 shuffle_images: true
                     new_height: 5 new_width: 6 rand_skip: 1 } top: "i" top: "l" }
    layers { layer { name: "win" type: "window_data" source: "w" batchsize: 1
                     det_fg_threshold: 0.6 det_bg_threshold: 0.4 det_fg_fraction: 0.3
                     det_context_pad: 16 det_crop_mode: "square" } top: "w" top: "wl" }
    layers { layer { name: "cat" type: "concat" concat_dim: 0 } bottom: "data" bottom: "i" top: "c" }
    layers { layer { name: "h5" type: "hdf5_data" source: "h" batchsize: 3 } top: "h" }
    layers { layer { name: "out" type: "hdf5_output" hdf5_output_param { file_name: "o.h5" } }
             bottom: "h" }
    layers { layer { name: "ig" type: "infogain_loss" source: "H" } bottom: "h" bottom: "l" }
  )");
  ExpectProtoEq(Parse<NetParameter>(R"(
    layer { name: "data" type: "Data" top: "data" top: "label"
            transform_param { scale: 0.5 mirror: true crop_size: 4 mean_file: "mean" }
            data_param { source: "db" batch_size: 8 rand_skip: 3 } }
    layer { name: "img" type: "ImageData" top: "i" top: "l"
            image_data_param { source: "list" batch_size: 2 shuffle: true new_height: 5
                               new_width: 6 rand_skip: 1 } }
    layer { name: "win" type: "WindowData" top: "w" top: "wl"
            window_data_param { source: "w" batch_size: 1 fg_threshold: 0.6 bg_threshold: 0.4
                                fg_fraction: 0.3 context_pad: 16 crop_mode: "square" } }
    layer { name: "cat" type: "Concat" bottom: "data" bottom: "i" top: "c"
            concat_param { concat_dim: 0 } }
    layer { name: "h5" type: "HDF5Data" top: "h" hdf5_data_param { source: "h" batch_size: 3 } }
    layer { name: "out" type: "HDF5Output" bottom: "h" hdf5_output_param { file_name: "o.h5" } }
    layer { name: "ig" type: "InfogainLoss" bottom: "h" bottom: "l"
            infogain_loss_param { source: "H" } }
  )"),
                out);
}

TEST(UpgradeNet, V0ToV1AloneKeepsV1Syntax) {
  auto out = UpgradeV0Net(Parse<NetParameter>(R"(
    input: "data"
    layers { layer { name: "pad" type: "padding" pad: 1 } bottom: "data" top: "p" }
    layers { layer { name: "pool" type: "pool" kernelsize: 3 blobs_lr: 0 } bottom: "p" top: "q" }
  )"));
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectProtoEq(Parse<NetParameter>(R"(
    input: "data"
    layers { name: "pool" type: POOLING bottom: "data" top: "q" blobs_lr: 0
             pooling_param { pad: 1 kernel_size: 3 } }
  )"),
                *out);
}

TEST(UpgradeNet, BatchNormWithThreeParamSpecsIsFrozen) {
  NetUpgrades applied;
  const NetParameter out = Upgraded(R"(
    layer { name: "bn" type: "BatchNorm" bottom: "x" top: "x"
            param { lr_mult: 1 } param { name: "v" lr_mult: 0 } param { decay_mult: 3 } }
    layer { name: "bn2" type: "BatchNorm" bottom: "x" top: "x" param { lr_mult: 0 } }
  )",
                                    &applied);
  ExpectProtoEq(Parse<NetParameter>(R"(
    layer { name: "bn" type: "BatchNorm" bottom: "x" top: "x"
            param { lr_mult: 0 decay_mult: 0 } param { name: "v" lr_mult: 0 decay_mult: 0 }
            param { lr_mult: 0 decay_mult: 0 } }
    layer { name: "bn2" type: "BatchNorm" bottom: "x" top: "x" param { lr_mult: 0 } }
  )"),
                out);
  EXPECT_EQ(applied.Describe(), "BatchNorm param specs");
}

TEST(UpgradeNet, CurrentNetNeedsNothing) {
  const NetParameter net = Parse<NetParameter>(R"(
    name: "n" layer { name: "a" type: "ReLU" bottom: "x" top: "x" param { lr_mult: 2 } }
  )");
  EXPECT_FALSE(NetUpgradesNeeded(net).any());
  NetUpgrades applied;
  ExpectProtoEq(net, Upgraded(net.DebugString(), &applied));
  EXPECT_FALSE(applied.any());
}

TEST(UpgradeNet, BlobsTravelWithTheirLayers) {
  const NetParameter out = Upgraded(R"(
    layers { name: "fc" type: INNER_PRODUCT blobs { shape { dim: 2 } data: 1 data: 2 } }
    layers { layer { name: "old" type: "innerproduct" blobs { num: 1 data: 7 } } }
  )");
  ExpectProtoEq(Parse<NetParameter>(R"(
    layer { name: "fc" type: "InnerProduct" blobs { shape { dim: 2 } data: 1 data: 2 } }
    layer { name: "old" type: "InnerProduct" blobs { num: 1 data: 7 } }
  )"),
                out);
}

TEST(UpgradeNet, NetCreateAcceptsV1Syntax) {
  NetState state;
  state.set_phase(TRAIN);
  auto net = Net::Create(Parse<NetParameter>(R"(
    input: "x" input_dim: 2 input_dim: 3 input_dim: 1 input_dim: 1
    layers { name: "fc" type: INNER_PRODUCT bottom: "x" top: "y"
             inner_product_param { num_output: 2 } }
  )"),
                         state, 1);
  ASSERT_TRUE(net.ok()) << net.status().message();
  EXPECT_EQ((*net)->layer_names().size(), 2u);
}

TEST(UpgradeNetErrors, BothLayerAndLayers) {
  EXPECT_EQ(
      UpgradeError(R"(name: "m" layer { name: "a" type: "ReLU" } layers { name: "b" type: RELU })"),
      "net 'm' mixes current 'layer' entries (first: 'a') with V1 'layers' entries "
      "(first: 'b'); use one syntax");
}

// A V1 layer that would upgrade to a layer with no type (Caffe writes one of type "" and fails
// only when the net is built).
TEST(UpgradeNetErrors, V1LayerWithoutAType) {
  EXPECT_EQ(UpgradeError(R"(layers { name: "a" type: RELU } layers { name: "b" type: NONE })"),
            "V1 layer #1: layer 'b' has type NONE (0), so it upgrades to no layer at all; give it "
            "one of the V1 types");
  EXPECT_EQ(UpgradeError(R"(layers { name: "b" })"),
            "V1 layer #0: layer 'b' has no type, so it upgrades to no layer at all; give it one "
            "of the V1 types");
  // A V0 layer without a type becomes such a V1 layer.
  EXPECT_EQ(UpgradeError(R"(layers { layer { name: "v0" } })"),
            "V1 layer #0: layer 'v0' has no type, so it upgrades to no layer at all; give it one "
            "of the V1 types");
}

// In a binary file, a number with no name in the enum reads as unset: refused with the number.
TEST(UpgradeNetErrors, UnnamedEnumValuesOfBinaryFiles) {
  NetParameter net;
  V1LayerParameter* layer = net.add_layers();
  layer->set_name("fc");
  layer->mutable_unknown_fields()->AddVarint(5, 999);  // type
  EXPECT_EQ(UpgradeNet(net).status().message(),
            "V1 layer #0 'fc': type is 999, which names no LayerType value (a damaged file, or a "
            "Caffe fork's?)");
  layer->mutable_unknown_fields()->Clear();
  layer->set_type(V1LayerParameter::INNER_PRODUCT);
  layer->add_blob_share_mode(V1LayerParameter::STRICT);
  layer->mutable_unknown_fields()->AddVarint(1002, 5);  // blob_share_mode
  EXPECT_EQ(UpgradeNet(net).status().message(),
            "V1 layer #0 'fc': blob_share_mode is 5, which names no DimCheckMode value (a damaged "
            "file, or a Caffe fork's?)");
  // Inside a V0 layer: its pooling method.
  NetParameter v0;
  V0LayerParameter* old = v0.add_layers()->mutable_layer();
  old->set_name("p");
  old->set_type("pool");
  old->mutable_unknown_fields()->AddVarint(11, 9);  // pool
  const std::string error = UpgradeNet(v0).status().message();
  EXPECT_EQ(error,
            "V1 layer #0 'p': layer.pool is 9, which names no PoolMethod value (a damaged "
            "file, or a Caffe fork's?)")
      << error;
}

TEST(UpgradeNetErrors, UnknownV0Type) {
  const std::string error = UpgradeError(R"(layers { layer { name: "x" type: "bogus" } })");
  EXPECT_EQ(error.rfind("layer 'x' (V0 type \"bogus\"): unknown V0 layer type; known: accuracy, "
                        "bnll, concat, conv, data,",
                        0),
            0u)
      << error;
}

TEST(UpgradeNetErrors, V0FieldWithoutAHome) {
  EXPECT_EQ(UpgradeError(R"(layers { layer { name: "r" type: "relu" num_output: 3 } })"),
            "layer 'r' (V0 type \"relu\"): V0 field 'num_output' has no counterpart in this "
            "layer type");
  EXPECT_EQ(UpgradeError(R"(layers { layer { name: "c" type: "conv" dropout_ratio: 0.1 } })"),
            "layer 'c' (V0 type \"conv\"): V0 field 'dropout_ratio' has no counterpart in this "
            "layer type");
}

TEST(UpgradeNetErrors, PaddingIntoNonConv) {
  EXPECT_EQ(UpgradeError(R"(
    input: "data"
    layers { layer { name: "pad" type: "padding" pad: 1 } bottom: "data" top: "p" }
    layers { layer { name: "r" type: "relu" } bottom: "p" top: "p" }
  )"),
            "layer 'r' (V0 type \"relu\"): reads the output of padding layer 'pad'; only a conv or "
            "pool layer may");
  EXPECT_EQ(UpgradeError(R"(
    input: "a" input: "b"
    layers { layer { name: "pad" type: "padding" pad: 1 } bottom: "a" bottom: "b" top: "p" }
    layers { layer { name: "c" type: "conv" } bottom: "p" top: "c" }
  )"),
            "layer 'c' (V0 type \"conv\"): a padding layer folds only into a single-input conv or "
            "pool layer, from one bottom to one top");
}

TEST(UpgradeNetErrors, V0BottomFromNowhere) {
  EXPECT_EQ(UpgradeError(R"(layers { layer { name: "c" type: "conv" } bottom: "nope" top: "c" })"),
            "layer 'c' (V0 type \"conv\"): bottom 'nope' is neither a net input nor a top of an "
            "earlier layer");
}

TEST(UpgradeSolver, SolverTypeEnumBecomesTypeString) {
  const std::pair<const char*, const char*> kTypes[] = {
      {"SGD", "SGD"},         {"NESTEROV", "Nesterov"}, {"ADAGRAD", "AdaGrad"},
      {"RMSPROP", "RMSProp"}, {"ADADELTA", "AdaDelta"}, {"ADAM", "Adam"}};
  for (const auto& [legacy, type] : kTypes) {
    auto solver = Parse<SolverParameter>(std::string("base_lr: 0.1 solver_type: ") + legacy);
    ASSERT_TRUE(UpgradeSolverAsNeeded("s.prototxt", &solver).ok());
    ExpectProtoEq(Parse<SolverParameter>(std::string("base_lr: 0.1 type: \"") + type + "\""),
                  solver);
  }
}

TEST(UpgradeSolver, BothFields) {
  auto same = Parse<SolverParameter>(R"(solver_type: ADAM type: "Adam")");
  ASSERT_TRUE(UpgradeSolverAsNeeded("s.prototxt", &same).ok());
  ExpectProtoEq(Parse<SolverParameter>(R"(type: "Adam")"), same);
  auto differ = Parse<SolverParameter>(R"(solver_type: NESTEROV type: "Adam")");
  const Status s = UpgradeSolverAsNeeded("s.prototxt", &differ);
  EXPECT_EQ(s.message(),
            "s.prototxt: solver_type: NESTEROV (deprecated) and type: \"Adam\" name "
            "different solvers; keep only type");
}

TEST(UpgradeSolver, InlineV0AndV1NetsAreUpgraded) {
  auto solver = Parse<SolverParameter>(R"(
    solver_type: SGD
    train_net_param { layers { name: "fc" type: INNER_PRODUCT blobs_lr: 2 } }
    test_net_param { layers { layer { name: "r" type: "relu" } } }
    net_param { layers { name: "s" type: SOFTMAX } }
  )");
  ASSERT_TRUE(UpgradeSolverAsNeeded("s.prototxt", &solver).ok());
  ExpectProtoEq(Parse<SolverParameter>(R"(
    type: "SGD"
    train_net_param { layer { name: "fc" type: "InnerProduct" param { lr_mult: 2 } } }
    test_net_param { layer { name: "r" type: "ReLU" } }
    net_param { layer { name: "s" type: "Softmax" } }
  )"),
                solver);
  auto bad =
      Parse<SolverParameter>(R"(test_net_param { layers { layer { name: "x" type: "q" } } })");
  const Status s = UpgradeSolverAsNeeded("s.prototxt", &bad);
  EXPECT_EQ(s.message().rfind("s.prototxt (test_net_param #0): layer 'x' (V0 type \"q\"): unknown "
                              "V0 layer type",
                              0),
            0u)
      << s.message();
}

}  // namespace
}  // namespace dtrain
