// V0 -> V1 (net/upgrade_net.h): Caffe's UpgradeV0PaddingLayers and UpgradeV0LayerParameter.
#include <map>

#include "net/upgrade_net.h"

namespace dtrain {
namespace {

std::string Describe(const V0LayerParameter& v0) {
  return "layer '" + v0.name() + "' (V0 type \"" + v0.type() + "\")";
}

Status NoHome(const V0LayerParameter& v0, const char* field) {
  return InvalidArgument(Describe(v0) + ": V0 field '" + field +
                         "' has no counterpart in this layer type");
}

StatusOr<V1LayerParameter::LayerType> V1Type(const V0LayerParameter& v0) {
  static const std::map<std::string, V1LayerParameter::LayerType> kTypes = {
      {"accuracy", V1LayerParameter::ACCURACY},
      {"bnll", V1LayerParameter::BNLL},
      {"concat", V1LayerParameter::CONCAT},
      {"conv", V1LayerParameter::CONVOLUTION},
      {"data", V1LayerParameter::DATA},
      {"dropout", V1LayerParameter::DROPOUT},
      {"euclidean_loss", V1LayerParameter::EUCLIDEAN_LOSS},
      {"flatten", V1LayerParameter::FLATTEN},
      {"hdf5_data", V1LayerParameter::HDF5_DATA},
      {"hdf5_output", V1LayerParameter::HDF5_OUTPUT},
      {"im2col", V1LayerParameter::IM2COL},
      {"images", V1LayerParameter::IMAGE_DATA},
      {"infogain_loss", V1LayerParameter::INFOGAIN_LOSS},
      {"innerproduct", V1LayerParameter::INNER_PRODUCT},
      {"lrn", V1LayerParameter::LRN},
      {"multinomial_logistic_loss", V1LayerParameter::MULTINOMIAL_LOGISTIC_LOSS},
      {"pool", V1LayerParameter::POOLING},
      {"relu", V1LayerParameter::RELU},
      {"sigmoid", V1LayerParameter::SIGMOID},
      {"softmax", V1LayerParameter::SOFTMAX},
      {"softmax_loss", V1LayerParameter::SOFTMAX_LOSS},
      {"split", V1LayerParameter::SPLIT},
      {"tanh", V1LayerParameter::TANH},
      {"window_data", V1LayerParameter::WINDOW_DATA},
  };
  auto it = kTypes.find(v0.type());
  if (it == kTypes.end()) {
    std::string known;
    for (const auto& [name, type] : kTypes) known += (known.empty() ? "" : ", ") + name;
    return InvalidArgument(Describe(v0) + ": unknown V0 layer type; known: " + known);
  }
  return it->second;
}

// Moves every V0 field into the V1 *_param of its layer type, as UpgradeV0LayerParameter does
// (new_num and new_channels have no counterpart and are dropped, as in Caffe).
Status MoveV0Fields(const V0LayerParameter& v0, V1LayerParameter* out) {
  const std::string& t = v0.type();
  const bool conv = t == "conv", ip = t == "innerproduct", pool = t == "pool";
  const bool data = t == "data", hdf5 = t == "hdf5_data", images = t == "images";
  const bool window = t == "window_data", lrn = t == "lrn";
  auto cv = [&] { return out->mutable_convolution_param(); };
  auto in = [&] { return out->mutable_inner_product_param(); };
  auto pl = [&] { return out->mutable_pooling_param(); };
  auto lr = [&] { return out->mutable_lrn_param(); };
  auto im = [&] { return out->mutable_image_data_param(); };
  auto wd = [&] { return out->mutable_window_data_param(); };

  if (v0.has_num_output()) {
    if (conv)
      cv()->set_num_output(v0.num_output());
    else if (ip)
      in()->set_num_output(v0.num_output());
    else
      return NoHome(v0, "num_output");
  }
  if (v0.has_biasterm()) {
    if (conv)
      cv()->set_bias_term(v0.biasterm());
    else if (ip)
      in()->set_bias_term(v0.biasterm());
    else
      return NoHome(v0, "biasterm");
  }
  if (v0.has_weight_filler()) {
    if (conv)
      *cv()->mutable_weight_filler() = v0.weight_filler();
    else if (ip)
      *in()->mutable_weight_filler() = v0.weight_filler();
    else
      return NoHome(v0, "weight_filler");
  }
  if (v0.has_bias_filler()) {
    if (conv)
      *cv()->mutable_bias_filler() = v0.bias_filler();
    else if (ip)
      *in()->mutable_bias_filler() = v0.bias_filler();
    else
      return NoHome(v0, "bias_filler");
  }
  if (v0.has_pad()) {
    if (conv)
      cv()->add_pad(v0.pad());
    else if (pool)
      pl()->set_pad(v0.pad());
    else
      return NoHome(v0, "pad");
  }
  if (v0.has_kernelsize()) {
    if (conv)
      cv()->add_kernel_size(v0.kernelsize());
    else if (pool)
      pl()->set_kernel_size(v0.kernelsize());
    else
      return NoHome(v0, "kernelsize");
  }
  if (v0.has_group()) {
    if (conv)
      cv()->set_group(v0.group());
    else
      return NoHome(v0, "group");
  }
  if (v0.has_stride()) {
    if (conv)
      cv()->add_stride(v0.stride());
    else if (pool)
      pl()->set_stride(v0.stride());
    else
      return NoHome(v0, "stride");
  }
  if (v0.has_pool()) {
    // V0's MAX/AVE/STOCHASTIC carry the numbers of PoolingParameter's.
    if (pool)
      pl()->set_pool(static_cast<PoolingParameter::PoolMethod>(v0.pool()));
    else
      return NoHome(v0, "pool");
  }
  if (v0.has_dropout_ratio()) {
    if (t == "dropout")
      out->mutable_dropout_param()->set_dropout_ratio(v0.dropout_ratio());
    else
      return NoHome(v0, "dropout_ratio");
  }
  if (v0.has_local_size()) {
    if (lrn)
      lr()->set_local_size(v0.local_size());
    else
      return NoHome(v0, "local_size");
  }
  if (v0.has_alpha()) {
    if (lrn)
      lr()->set_alpha(v0.alpha());
    else
      return NoHome(v0, "alpha");
  }
  if (v0.has_beta()) {
    if (lrn)
      lr()->set_beta(v0.beta());
    else
      return NoHome(v0, "beta");
  }
  if (v0.has_k()) {
    if (lrn)
      lr()->set_k(v0.k());
    else
      return NoHome(v0, "k");
  }
  if (v0.has_source()) {
    if (data)
      out->mutable_data_param()->set_source(v0.source());
    else if (hdf5)
      out->mutable_hdf5_data_param()->set_source(v0.source());
    else if (images)
      im()->set_source(v0.source());
    else if (window)
      wd()->set_source(v0.source());
    else if (t == "infogain_loss")
      out->mutable_infogain_loss_param()->set_source(v0.source());
    else
      return NoHome(v0, "source");
  }
  // The transformation fields go to transform_param whatever the type, as in Caffe.
  if (v0.has_scale()) out->mutable_transform_param()->set_scale(v0.scale());
  if (v0.has_meanfile()) out->mutable_transform_param()->set_mean_file(v0.meanfile());
  if (v0.has_cropsize()) out->mutable_transform_param()->set_crop_size(v0.cropsize());
  if (v0.has_mirror()) out->mutable_transform_param()->set_mirror(v0.mirror());
  if (v0.has_batchsize()) {
    if (data)
      out->mutable_data_param()->set_batch_size(v0.batchsize());
    else if (hdf5)
      out->mutable_hdf5_data_param()->set_batch_size(v0.batchsize());
    else if (images)
      im()->set_batch_size(v0.batchsize());
    else if (window)
      wd()->set_batch_size(v0.batchsize());
    else
      return NoHome(v0, "batchsize");
  }
  if (v0.has_rand_skip()) {
    if (data)
      out->mutable_data_param()->set_rand_skip(v0.rand_skip());
    else if (images)
      im()->set_rand_skip(v0.rand_skip());
    else
      return NoHome(v0, "rand_skip");
  }
  if (v0.has_shuffle_images()) {
    if (images)
      im()->set_shuffle(v0.shuffle_images());
    else
      return NoHome(v0, "shuffle_images");
  }
  if (v0.has_new_height()) {
    if (images)
      im()->set_new_height(v0.new_height());
    else
      return NoHome(v0, "new_height");
  }
  if (v0.has_new_width()) {
    if (images)
      im()->set_new_width(v0.new_width());
    else
      return NoHome(v0, "new_width");
  }
  if (v0.has_concat_dim()) {
    if (t == "concat")
      out->mutable_concat_param()->set_concat_dim(v0.concat_dim());
    else
      return NoHome(v0, "concat_dim");
  }
  if (v0.has_det_fg_threshold()) {
    if (window)
      wd()->set_fg_threshold(v0.det_fg_threshold());
    else
      return NoHome(v0, "det_fg_threshold");
  }
  if (v0.has_det_bg_threshold()) {
    if (window)
      wd()->set_bg_threshold(v0.det_bg_threshold());
    else
      return NoHome(v0, "det_bg_threshold");
  }
  if (v0.has_det_fg_fraction()) {
    if (window)
      wd()->set_fg_fraction(v0.det_fg_fraction());
    else
      return NoHome(v0, "det_fg_fraction");
  }
  if (v0.has_det_context_pad()) {
    if (window)
      wd()->set_context_pad(v0.det_context_pad());
    else
      return NoHome(v0, "det_context_pad");
  }
  if (v0.has_det_crop_mode()) {
    if (window)
      wd()->set_crop_mode(v0.det_crop_mode());
    else
      return NoHome(v0, "det_crop_mode");
  }
  if (v0.has_hdf5_output_param()) {
    if (t == "hdf5_output")
      *out->mutable_hdf5_output_param() = v0.hdf5_output_param();
    else
      return NoHome(v0, "hdf5_output_param");
  }
  return Status::Ok();
}

StatusOr<V1LayerParameter> UpgradeV0Layer(const V1LayerParameter& connection) {
  V1LayerParameter out;
  *out.mutable_bottom() = connection.bottom();
  *out.mutable_top() = connection.top();
  const V0LayerParameter& v0 = connection.layer();
  if (v0.has_name()) out.set_name(v0.name());
  if (v0.has_type()) {
    DT_ASSIGN_OR_RETURN(V1LayerParameter::LayerType type, V1Type(v0));
    out.set_type(type);
  }
  *out.mutable_blobs() = v0.blobs();
  *out.mutable_blobs_lr() = v0.blobs_lr();
  *out.mutable_weight_decay() = v0.weight_decay();
  DT_RETURN_IF_ERROR(MoveV0Fields(v0, &out));
  return out;
}

// A V0 "padding" layer disappears: its pad goes to the conv or pool layer that reads its output,
// which then reads the padding layer's input instead.
StatusOr<NetParameter> FoldPaddingLayers(const NetParameter& net) {
  NetParameter folded(net);
  folded.clear_layers();
  std::map<std::string, int> producer;  // blob -> index in net.layers() of its latest producer
  for (const std::string& input : net.input()) producer[input] = -1;
  for (int i = 0; i < net.layers_size(); ++i) {
    const V1LayerParameter& connection = net.layers(i);
    const V0LayerParameter& v0 = connection.layer();
    const bool padding = v0.type() == "padding";
    if (!padding) *folded.add_layers() = connection;
    for (int j = 0; j < connection.bottom_size(); ++j) {
      auto it = producer.find(connection.bottom(j));
      if (it == producer.end()) {
        return InvalidArgument(Describe(v0) + ": bottom '" + connection.bottom(j) +
                               "' is neither a net input nor a top of an earlier layer");
      }
      if (it->second < 0) continue;
      const V1LayerParameter& source = net.layers(it->second);
      if (source.layer().type() != "padding") continue;
      if (padding || (v0.type() != "conv" && v0.type() != "pool")) {
        return InvalidArgument(Describe(v0) + ": reads the output of padding layer '" +
                               source.layer().name() + "'; only a conv or pool layer may");
      }
      if (connection.bottom_size() != 1 || source.bottom_size() != 1 || source.top_size() != 1) {
        return InvalidArgument(Describe(v0) +
                               ": a padding layer folds only into a single-input "
                               "conv or pool layer, from one bottom to one top");
      }
      V1LayerParameter* target = folded.mutable_layers(folded.layers_size() - 1);
      target->mutable_layer()->set_pad(source.layer().pad());
      target->set_bottom(j, source.bottom(0));
    }
    for (const std::string& top : connection.top()) producer[top] = i;
  }
  return folded;
}

}  // namespace

StatusOr<NetParameter> UpgradeV0Net(const NetParameter& net) {
  DT_ASSIGN_OR_RETURN(NetParameter folded, FoldPaddingLayers(net));
  NetParameter out(folded);
  out.clear_layers();
  for (const V1LayerParameter& connection : folded.layers()) {
    if (!connection.has_layer()) {
      *out.add_layers() = connection;
      continue;
    }
    DT_ASSIGN_OR_RETURN(*out.add_layers(), UpgradeV0Layer(connection));
  }
  return out;
}

}  // namespace dtrain
