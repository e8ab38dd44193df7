

#include "layers/registry.h"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include "layers/absval_layer.h"
#include "layers/accuracy_layer.h"
#include "layers/annotated_data_layer.h"
#include "layers/argmax_layer.h"
#include "layers/axpy_layer.h"
#include "layers/batch_norm_layer.h"
#include "layers/batch_reindex_layer.h"
#include "layers/bias_layer.h"
#include "layers/bnll_layer.h"
#include "layers/box_annotator_ohem_layer.h"
#include "layers/box_data_layer.h"
#include "layers/clip_layer.h"
#include "layers/concat_layer.h"
#include "layers/contrastive_loss_layer.h"
#include "layers/convolution_layer.h"
#include "layers/crop_layer.h"
#include "layers/data_layer.h"
#include "layers/deconvolution_layer.h"
#include "layers/detection_evaluate_layer.h"
#include "layers/detection_output_layer.h"
#include "layers/dropout_layer.h"
#include "layers/dummy_data_layer.h"
#include "layers/eltwise_layer.h"
#include "layers/elu_layer.h"
#include "layers/embed_layer.h"
#include "layers/euclidean_loss_layer.h"
#include "layers/eval_detection_layer.h"
#include "layers/exp_layer.h"
#include "layers/filter_layer.h"
#include "layers/flatten_layer.h"
#include "layers/hdf5_data_layer.h"
#include "layers/hdf5_output_layer.h"
#include "layers/hinge_loss_layer.h"
#include "layers/im2col_layer.h"
#include "layers/image_data_layer.h"
#include "layers/infogain_loss_layer.h"
#include "layers/inner_product_layer.h"
#include "layers/input_layer.h"
#include "layers/layer_inputs.h"
#include "layers/log_layer.h"
#include "layers/lrn_layer.h"
#include "layers/lstm_layer.h"
#include "layers/lstm_unit_layer.h"
#include "layers/memory_data_layer.h"
#include "layers/multibox_loss_layer.h"
#include "layers/multinomial_logistic_loss_layer.h"
#include "layers/mvn_layer.h"
#include "layers/normalize_layer.h"
#include "layers/parameter_layer.h"
#include "layers/permute_layer.h"
#include "layers/pooling_layer.h"
#include "layers/power_layer.h"
#include "layers/prelu_layer.h"
#include "layers/prior_box_layer.h"
#include "layers/psroi_pooling_layer.h"
#include "layers/reduction_layer.h"
#include "layers/region_loss_layer.h"
#include "layers/relu_layer.h"
#include "layers/reorg_layer.h"
#include "layers/reshape_layer.h"
#include "layers/rnn_layer.h"
#include "layers/roi_pooling_layer.h"
#include "layers/scale_layer.h"
#include "layers/shuffle_channel_layer.h"
#include "layers/sigmoid_cross_entropy_loss_layer.h"
#include "layers/sigmoid_layer.h"
#include "layers/silence_layer.h"
#include "layers/slice_layer.h"
#include "layers/smooth_l1_loss_layer.h"
#include "layers/smooth_l1_loss_ohem_layer.h"
#include "layers/softmax_layer.h"
#include "layers/softmax_with_loss_layer.h"
#include "layers/softmax_with_loss_ohem_layer.h"
#include "layers/split_layer.h"
#include "layers/spp_layer.h"
#include "layers/swish_layer.h"
#include "layers/tanh_layer.h"
#include "layers/threshold_layer.h"
#include "layers/tile_layer.h"
#include "layers/video_data_layer.h"
#include "layers/window_data_layer.h"
// One include per layer file, in the order of the table below.
#include "proto/net.pb.h"

namespace dtrain {
namespace {

using Factory = LayerFactory;

template <typename T>
Factory Make() {
  return [](const LayerParameter& p, const LayerContext& c) { return std::make_unique<T>(p, c); };
}

// Every supported layer, by Caffe type name. Adding a layer adds one line here.
const std::map<std::string, Factory>& Table() {
  static const std::map<std::string, Factory> table = {
      {"AbsVal", Make<AbsValLayer>()},
      {"Accuracy", Make<AccuracyLayer>()},
      {"AnnotatedData", Make<AnnotatedDataLayer>()},  // the SSD fork's
      {"ArgMax", Make<ArgMaxLayer>()},
      {"Axpy", Make<AxpyLayer>()},  // SENet ports
      {"BNLL", Make<BNLLLayer>()},
      {"BatchNorm", Make<BatchNormLayer>()},
      {"BatchReindex", Make<BatchReindexLayer>()},
      {"BoxData", Make<BoxDataLayer>()},  // YOLO ports (Intel Caffe)
      {"Bias", Make<BiasLayer>()},
      {"BoxAnnotatorOHEM", Make<BoxAnnotatorOHEMLayer>()},  // R-FCN
      {"Clip", Make<ClipLayer>()},
      {"Concat", Make<ConcatLayer>()},
      {"ContrastiveLoss", Make<ContrastiveLossLayer>()},
      {"Convolution", Make<ConvolutionLayer>()},
      // Forks' depthwise types: a Convolution with one group per input channel.
      {"ConvolutionDepthwise", Make<ConvolutionLayer>()},
      {"Crop", Make<CropLayer>()},
      {"Data", Make<DataLayer>()},
      {"Deconvolution", Make<DeconvolutionLayer>()},
      {"DepthwiseConvolution", Make<ConvolutionLayer>()},
      {"DetectionEvaluate", Make<DetectionEvaluateLayer>()},
      {"DetectionOutput", Make<DetectionOutputLayer>()},
      {"Dropout", Make<DropoutLayer>()},
      {"DummyData", Make<DummyDataLayer>()},
      {"ELU", Make<ELULayer>()},
      {"Eltwise", Make<EltwiseLayer>()},
      {"Embed", Make<EmbedLayer>()},
      {"EuclideanLoss", Make<EuclideanLossLayer>()},
      {"EvalDetection", Make<EvalDetectionLayer>()},  // YOLO v2 ports (Intel Caffe)
      {"Exp", Make<ExpLayer>()},
      {"Filter", Make<FilterLayer>()},
      {"Flatten", Make<FlattenLayer>()},
      {"HDF5Data", Make<HDF5DataLayer>()},
      {"HDF5Output", Make<HDF5OutputLayer>()},
      {"Im2col", Make<Im2colLayer>()},
      {"HingeLoss", Make<HingeLossLayer>()},
      {"ImageData", Make<ImageDataLayer>()},
      {"InfogainLoss", Make<InfogainLossLayer>()},
      {"InnerProduct", Make<InnerProductLayer>()},
      {"Input", Make<InputLayer>()},
      {"LRN", Make<LRNLayer>()},
      {"LSTM", Make<LSTMLayer>()},
      {"LSTMUnit", Make<LSTMUnitLayer>()},
      {"Log", Make<LogLayer>()},
      {"MVN", Make<MVNLayer>()},
      {"MemoryData", Make<MemoryDataLayer>()},
      {"MultiBoxLoss", Make<MultiBoxLossLayer>()},  // SSD's (Intel Caffe)
      {"MultinomialLogisticLoss", Make<MultinomialLogisticLossLayer>()},
      {"Normalize", Make<NormalizeLayer>()},  // SSD's (Intel Caffe)
      {"PReLU", Make<PReLULayer>()},
      {"PSROIPooling", Make<PSROIPoolingLayer>()},  // R-FCN
      {"Parameter", Make<ParameterLayer>()},
      {"Permute", Make<PermuteLayer>()},  // SSD's (Intel Caffe)
      {"Pooling", Make<PoolingLayer>()},
      {"Power", Make<PowerLayer>()},
      {"PriorBox", Make<PriorBoxLayer>()},  // SSD's (Intel Caffe)
      {"RNN", Make<RNNLayer>()},
      {"ROIPooling", Make<ROIPoolingLayer>()},  // Fast R-CNN
      {"ReLU", Make<ReLULayer>()},
      {"Reorg", Make<ReorgLayer>()},  // YOLO v2 ports
      {"Reduction", Make<ReductionLayer>()},
      {"RegionLoss", Make<RegionLossLayer>()},  // YOLO v2 ports (Intel Caffe)
      {"Reshape", Make<ReshapeLayer>()},
      {"Scale", Make<ScaleLayer>()},
      {"Sigmoid", Make<SigmoidLayer>()},
      {"ShuffleChannel", Make<ShuffleChannelLayer>()},  // a fork's type (ShuffleNet)
      {"SPP", Make<SPPLayer>()},
      {"SigmoidCrossEntropyLoss", Make<SigmoidCrossEntropyLossLayer>()},
      {"Silence", Make<SilenceLayer>()},
      {"Slice", Make<SliceLayer>()},
      {"SmoothL1Loss", Make<SmoothL1LossLayer>()},          // Fast R-CNN
      {"SmoothL1LossOHEM", Make<SmoothL1LossOHEMLayer>()},  // R-FCN
      {"Softmax", Make<SoftmaxLayer>()},
      {"SoftmaxWithLoss", Make<SoftmaxWithLossLayer>()},
      {"SoftmaxWithLossOHEM", Make<SoftmaxWithLossOHEMLayer>()},  // R-FCN
      {"Split", Make<SplitLayer>()},
      {"Swish", Make<SwishLayer>()},
      {"TanH", Make<TanHLayer>()},
      {"Threshold", Make<ThresholdLayer>()},
      {"Tile", Make<TileLayer>()},
      {"VideoData", Make<VideoDataLayer>()},  // the SSD fork's (Intel Caffe): video files
      {"WindowData", Make<WindowDataLayer>()},
  };
  return table;
}

constexpr char kPythonType[] = "Python";

// SetPythonLayerFactory's factory; empty until installed.
LayerFactory& PythonFactory() {
  static LayerFactory factory;
  return factory;
}

}  // namespace

void SetPythonLayerFactory(LayerFactory factory) { PythonFactory() = std::move(factory); }

StatusOr<std::unique_ptr<Layer>> CreateLayer(const LayerParameter& param,
                                             const LayerContext& context) {
  if (param.type() == kPythonType && PythonFactory()) return PythonFactory()(param, context);
  auto it = Table().find(param.type());
  if (it == Table().end()) {
    std::string list;
    for (const std::string& t : SupportedLayerTypes()) list += (list.empty() ? "" : ", ") + t;
    return Unsupported("layer '" + param.name() + "': unknown layer type \"" + param.type() +
                       "\"; supported types: " + list);
  }
  return it->second(param, context);
}

namespace {

struct InputsOfType {
  LayerInputs (*inputs)(const LayerParameter&);
  void (*set_records)(LayerParameter*, const std::string&);
};

template <typename T>
InputsOfType InputsOf() {
  return {&T::Inputs, &T::SetRecords};
}

// The layer types that read records from files (layer_inputs.h); every other type reads none.
const std::map<std::string, InputsOfType>& InputsTable() {
  static const std::map<std::string, InputsOfType> table = {
      {"AnnotatedData", InputsOf<AnnotatedDataLayer>()},
      {"BoxData", InputsOf<BoxDataLayer>()},
      {"Data", InputsOf<DataLayer>()},
      {"HDF5Data", InputsOf<HDF5DataLayer>()},
      {"ImageData", InputsOf<ImageDataLayer>()},
      {"VideoData", InputsOf<VideoDataLayer>()},
      {"WindowData", InputsOf<WindowDataLayer>()},
  };
  return table;
}

}  // namespace

LayerInputs InputsOfLayer(const LayerParameter& param) {
  auto it = InputsTable().find(param.type());
  LayerInputs in = it == InputsTable().end() ? LayerInputs{} : it->second.inputs(param);
  if (param.has_transform_param() && param.transform_param().has_mean_file()) {
    in.files.push_back(param.transform_param().mean_file());
  }
  return in;
}

Status SetRecordsOfLayer(LayerParameter* param, const std::string& records) {
  auto it = InputsTable().find(param->type());
  if (it == InputsTable().end()) {
    return InvalidArgument("layer '" + param->name() + "' (" + param->type() +
                           ") reads no records to point at '" + records + "'");
  }
  it->second.set_records(param, records);
  return Status::Ok();
}

bool IsSupportedLayerType(const std::string& type) {
  return Table().count(type) > 0 || (type == kPythonType && PythonFactory());
}

std::vector<std::string> SupportedLayerTypes() {
  std::vector<std::string> types;
  for (const auto& entry : Table()) types.push_back(entry.first);
  if (PythonFactory()) {
    types.push_back(kPythonType);
    std::sort(types.begin(), types.end());  // the table's order
  }
  return types;
}

}  // namespace dtrain
