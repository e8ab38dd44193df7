#include "net/upgrade_net.h"

#include <google/protobuf/descriptor.h>

#include "core/check.h"
#include "net/net_filter.h"
#include "net/unnamed_enum_values.h"

namespace dtrain {
namespace {

namespace pb = google::protobuf;

// V1 DATA, IMAGE_DATA and WINDOW_DATA layers once carried their transformation in their own
// *_param, under the same accessor names in all three.
template <typename P>
bool HasTransformFields(const P& p) {
  return p.has_scale() || p.has_mean_file() || p.has_crop_size() || p.has_mirror();
}

template <typename P>
void MoveTransformFields(P* p, V1LayerParameter* layer) {
  if (!HasTransformFields(*p)) return;
  TransformationParameter* t = layer->mutable_transform_param();
  if (p->has_scale()) t->set_scale(p->scale());
  if (p->has_mean_file()) t->set_mean_file(p->mean_file());
  if (p->has_crop_size()) t->set_crop_size(p->crop_size());
  if (p->has_mirror()) t->set_mirror(p->mirror());
  p->clear_scale();
  p->clear_mean_file();
  p->clear_crop_size();
  p->clear_mirror();
}

bool HasOldTransformFields(const V1LayerParameter& layer) {
  switch (layer.type()) {
    case V1LayerParameter::DATA:
      return HasTransformFields(layer.data_param());
    case V1LayerParameter::IMAGE_DATA:
      return HasTransformFields(layer.image_data_param());
    case V1LayerParameter::WINDOW_DATA:
      return HasTransformFields(layer.window_data_param());
    default:
      return false;
  }
}

std::string V1TypeName(V1LayerParameter::LayerType type) {
  switch (type) {
    case V1LayerParameter::NONE:
      return "";
    case V1LayerParameter::ABSVAL:
      return "AbsVal";
    case V1LayerParameter::ACCURACY:
      return "Accuracy";
    case V1LayerParameter::ARGMAX:
      return "ArgMax";
    case V1LayerParameter::BNLL:
      return "BNLL";
    case V1LayerParameter::CONCAT:
      return "Concat";
    case V1LayerParameter::CONTRASTIVE_LOSS:
      return "ContrastiveLoss";
    case V1LayerParameter::CONVOLUTION:
      return "Convolution";
    case V1LayerParameter::DATA:
      return "Data";
    case V1LayerParameter::DECONVOLUTION:
      return "Deconvolution";
    case V1LayerParameter::DROPOUT:
      return "Dropout";
    case V1LayerParameter::DUMMY_DATA:
      return "DummyData";
    case V1LayerParameter::EUCLIDEAN_LOSS:
      return "EuclideanLoss";
    case V1LayerParameter::ELTWISE:
      return "Eltwise";
    case V1LayerParameter::EXP:
      return "Exp";
    case V1LayerParameter::FLATTEN:
      return "Flatten";
    case V1LayerParameter::HDF5_DATA:
      return "HDF5Data";
    case V1LayerParameter::HDF5_OUTPUT:
      return "HDF5Output";
    case V1LayerParameter::HINGE_LOSS:
      return "HingeLoss";
    case V1LayerParameter::IM2COL:
      return "Im2col";
    case V1LayerParameter::IMAGE_DATA:
      return "ImageData";
    case V1LayerParameter::INFOGAIN_LOSS:
      return "InfogainLoss";
    case V1LayerParameter::INNER_PRODUCT:
      return "InnerProduct";
    case V1LayerParameter::LRN:
      return "LRN";
    case V1LayerParameter::MEMORY_DATA:
      return "MemoryData";
    case V1LayerParameter::MULTINOMIAL_LOGISTIC_LOSS:
      return "MultinomialLogisticLoss";
    case V1LayerParameter::MVN:
      return "MVN";
    case V1LayerParameter::POOLING:
      return "Pooling";
    case V1LayerParameter::POWER:
      return "Power";
    case V1LayerParameter::RELU:
      return "ReLU";
    case V1LayerParameter::SIGMOID:
      return "Sigmoid";
    case V1LayerParameter::SIGMOID_CROSS_ENTROPY_LOSS:
      return "SigmoidCrossEntropyLoss";
    case V1LayerParameter::SILENCE:
      return "Silence";
    case V1LayerParameter::SOFTMAX:
      return "Softmax";
    case V1LayerParameter::SOFTMAX_LOSS:
      return "SoftmaxWithLoss";
    case V1LayerParameter::SPLIT:
      return "Split";
    case V1LayerParameter::SLICE:
      return "Slice";
    case V1LayerParameter::TANH:
      return "TanH";
    case V1LayerParameter::WINDOW_DATA:
      return "WindowData";
    case V1LayerParameter::THRESHOLD:
      return "Threshold";
  }
  return "";  // unreachable: the parser keeps unknown enum numbers out of the field
}

ParamSpec* SpecAt(LayerParameter* layer, int i) {
  while (layer->param_size() <= i) layer->add_param();
  return layer->mutable_param(i);
}

StatusOr<LayerParameter> UpgradeV1Layer(const V1LayerParameter& v1) {
  if (v1.has_layer()) {
    return InvalidArgument("layer '" + v1.name() + "' still holds a V0 layer definition");
  }
  if (!v1.has_type() || v1.type() == V1LayerParameter::NONE) {
    // Caffe would upgrade it to a layer of type "" and fail only when building the net.
    return InvalidArgument("layer '" + v1.name() + "' has " +
                           (v1.has_type() ? "type NONE (0)" : "no type") +
                           ", so it upgrades to no layer at all; give it one of the V1 types");
  }
  LayerParameter out;
  if (v1.has_name()) out.set_name(v1.name());
  out.set_type(V1TypeName(v1.type()));
  *out.mutable_bottom() = v1.bottom();
  *out.mutable_top() = v1.top();
  *out.mutable_include() = v1.include();
  *out.mutable_exclude() = v1.exclude();
  *out.mutable_loss_weight() = v1.loss_weight();
  *out.mutable_blobs() = v1.blobs();
  // The four per-blob lists become one ParamSpec per blob, as long as the longest list.
  for (int i = 0; i < v1.param_size(); ++i) SpecAt(&out, i)->set_name(v1.param(i));
  for (int i = 0; i < v1.blob_share_mode_size(); ++i) {
    // V1's STRICT/PERMISSIVE carry ParamSpec's numbers.
    SpecAt(&out, i)->set_share_mode(static_cast<ParamSpec::DimCheckMode>(v1.blob_share_mode(i)));
  }
  for (int i = 0; i < v1.blobs_lr_size(); ++i) SpecAt(&out, i)->set_lr_mult(v1.blobs_lr(i));
  for (int i = 0; i < v1.weight_decay_size(); ++i) {
    SpecAt(&out, i)->set_decay_mult(v1.weight_decay(i));
  }
  // Every *_param of V1 (transform_param and loss_param included) has a LayerParameter field of
  // the same name and message type.
  const pb::Descriptor* from = V1LayerParameter::descriptor();
  const pb::Descriptor* to = LayerParameter::descriptor();
  for (int f = 0; f < from->field_count(); ++f) {
    const pb::FieldDescriptor* field = from->field(f);
    const std::string& name = field->name();
    if (field->type() != pb::FieldDescriptor::TYPE_MESSAGE || name.size() < 6 ||
        name.compare(name.size() - 6, 6, "_param") != 0) {
      continue;
    }
    if (!v1.GetReflection()->HasField(v1, field)) continue;
    const pb::FieldDescriptor* target = to->FindFieldByName(name);
    DT_CHECK(target && target->message_type() == field->message_type());
    out.GetReflection()
        ->MutableMessage(&out, target)
        ->CopyFrom(v1.GetReflection()->GetMessage(v1, field));
  }
  return out;
}

// A binary file's enum value with no name reads as the field's default (a V1 type of 999 as no
// type): refused, before any upgrade drops it, naming the layer, the field and the value.
Status CheckEnumValuesHaveNames(const NetParameter& net) {
  for (int i = 0; i < net.layers_size(); ++i) {
    const V1LayerParameter& layer = net.layers(i);
    UnnamedEnumValue found;
    if (!FindUnnamedEnumValue(layer, &found)) continue;
    const std::string name = layer.has_name() ? layer.name() : layer.layer().name();
    return InvalidArgument("V1 layer #" + std::to_string(i) + " '" + name + "': " + found.field +
                           " is " + std::to_string(found.value) + ", which names no " +
                           found.enum_type + " value (a damaged file, or a Caffe fork's?)");
  }
  return Status::Ok();
}

}  // namespace

std::string NetUpgrades::Describe() const {
  std::string out;
  auto add = [&](bool on, const char* what) {
    if (on) out += (out.empty() ? "" : ", ") + std::string(what);
  };
  add(v0, "V0 layer syntax");
  add(data_transform, "V1 data transformation fields");
  add(v1, "V1 layer syntax");
  add(input, "legacy input fields");
  add(batch_norm, "BatchNorm param specs");
  return out;
}

NetUpgrades NetUpgradesNeeded(const NetParameter& net) {
  NetUpgrades needed;
  for (const V1LayerParameter& layer : net.layers()) {
    needed.v0 |= layer.has_layer();
    needed.data_transform |= HasOldTransformFields(layer);
  }
  needed.v1 = net.layers_size() > 0;
  needed.input = net.input_size() > 0;
  for (const LayerParameter& layer : net.layer()) {
    needed.batch_norm |= layer.type() == "BatchNorm" && layer.param_size() == 3;
  }
  return needed;
}

void UpgradeDataTransformation(NetParameter* net) {
  for (V1LayerParameter& layer : *net->mutable_layers()) {
    if (!HasOldTransformFields(layer)) continue;
    switch (layer.type()) {
      case V1LayerParameter::DATA:
        MoveTransformFields(layer.mutable_data_param(), &layer);
        break;
      case V1LayerParameter::IMAGE_DATA:
        MoveTransformFields(layer.mutable_image_data_param(), &layer);
        break;
      case V1LayerParameter::WINDOW_DATA:
        MoveTransformFields(layer.mutable_window_data_param(), &layer);
        break;
      default:
        break;
    }
  }
}

StatusOr<NetParameter> UpgradeV1Net(const NetParameter& net) {
  if (net.layer_size() > 0 && net.layers_size() > 0) {
    return InvalidArgument("net '" + net.name() + "' mixes current 'layer' entries (first: '" +
                           net.layer(0).name() + "') with V1 'layers' entries (first: '" +
                           net.layers(0).name() + "'); use one syntax");
  }
  NetParameter out(net);
  out.clear_layers();
  for (int i = 0; i < net.layers_size(); ++i) {
    auto layer = UpgradeV1Layer(net.layers(i));
    if (!layer.ok()) return layer.status().WithContext("V1 layer #" + std::to_string(i));
    *out.add_layer() = std::move(layer).value();
  }
  return out;
}

void UpgradeBatchNorm(NetParameter* net) {
  for (LayerParameter& layer : *net->mutable_layer()) {
    if (layer.type() != "BatchNorm" || layer.param_size() != 3) continue;
    for (ParamSpec& spec : *layer.mutable_param()) {
      spec.set_lr_mult(0.f);
      spec.set_decay_mult(0.f);
    }
  }
}

StatusOr<NetParameter> UpgradeNet(const NetParameter& net, NetUpgrades* applied) {
  NetUpgrades local;
  NetUpgrades& done = applied ? *applied : local;
  done = NetUpgrades();
  DT_RETURN_IF_ERROR(CheckEnumValuesHaveNames(net));
  NetParameter out(net);
  if (NetUpgradesNeeded(out).v0) {
    DT_ASSIGN_OR_RETURN(out, UpgradeV0Net(out));
    done.v0 = true;
  }
  if (NetUpgradesNeeded(out).data_transform) {
    UpgradeDataTransformation(&out);
    done.data_transform = true;
  }
  if (NetUpgradesNeeded(out).v1) {
    DT_ASSIGN_OR_RETURN(out, UpgradeV1Net(out));
    done.v1 = true;
  }
  if (NetUpgradesNeeded(out).input) {
    DT_ASSIGN_OR_RETURN(out, ConvertLegacyInputs(out));
    done.input = true;
  }
  if (NetUpgradesNeeded(out).batch_norm) {
    UpgradeBatchNorm(&out);
    done.batch_norm = true;
  }
  return out;
}

}  // namespace dtrain
