#include "data/transformer.h"

#include <string>

#include "core/proto_io.h"
#include "data/datum.h"

namespace dtrain {

TransformationParameter WithLegacyDataFields(TransformationParameter transform,
                                             const DataParameter& data) {
  if (data.has_scale() && !transform.has_scale()) transform.set_scale(data.scale());
  if (data.has_mean_file() && !transform.has_mean_file()) transform.set_mean_file(data.mean_file());
  if (data.has_crop_size() && !transform.has_crop_size()) transform.set_crop_size(data.crop_size());
  if (data.has_mirror() && !transform.has_mirror()) transform.set_mirror(data.mirror());
  return transform;
}

DataTransformer::DataTransformer(const TransformationParameter& param, Phase phase, uint64_t seed)
    : param_(param), phase_(phase), rng_(seed) {}

Status DataTransformer::Init() {
  if (param_.has_mean_file() && param_.mean_value_size() > 0) {
    return InvalidArgument("transform_param: cannot specify both mean_file and mean_value");
  }
  if (!param_.has_mean_file()) return Status::Ok();

  const std::string& path = param_.mean_file();
  BlobProto proto;
  DT_RETURN_IF_ERROR(ReadBinaryProto(path, &proto).WithContext("transform_param.mean_file"));
  Tensor mean;
  DT_RETURN_IF_ERROR(
      mean.FromProto(proto, /*reshape=*/true).WithContext("mean_file '" + path + "'"));
  // Caffe's mean files are 1 x C x H x W; keep C x H x W.
  const int axes = mean.num_axes();
  if (axes < 3 || mean.count(0, axes - 3) != 1) {
    return InvalidArgument("mean_file '" + path + "' has shape " + mean.ShapeString() +
                           "; expected 1 x C x H x W");
  }
  mean_.Reshape({mean.shape(-3), mean.shape(-2), mean.shape(-1)});
  mean_.ShareData(mean);
  has_mean_file_ = true;
  return Status::Ok();
}

std::vector<int> DataTransformer::OutputShape(const Datum& datum) const {
  const int crop = static_cast<int>(param_.crop_size());
  return {datum.channels(), crop > 0 ? crop : datum.height(), crop > 0 ? crop : datum.width()};
}

Status DataTransformer::CheckFits(const Datum& datum) const {
  const int crop = static_cast<int>(param_.crop_size());
  if (crop > 0 && (datum.height() < crop || datum.width() < crop)) {
    return InvalidArgument("crop_size " + std::to_string(crop) + " is larger than the image (" +
                           DatumShapeString(datum) + ")");
  }
  if (has_mean_file_ && (mean_.shape(0) != datum.channels() || mean_.shape(1) != datum.height() ||
                         mean_.shape(2) != datum.width())) {
    return InvalidArgument("mean_file '" + param_.mean_file() + "' is " +
                           std::to_string(mean_.shape(0)) + "x" + std::to_string(mean_.shape(1)) +
                           "x" + std::to_string(mean_.shape(2)) + " but the image is " +
                           DatumShapeString(datum));
  }
  const int means = param_.mean_value_size();
  if (means > 1 && means != datum.channels()) {
    return InvalidArgument("transform_param has " + std::to_string(means) +
                           " mean_value entries; give 1 or one per channel (" +
                           std::to_string(datum.channels()) + ")");
  }
  return Status::Ok();
}

Status DataTransformer::Transform(const Datum& datum, float* out) {
  DT_RETURN_IF_ERROR(CheckFits(datum));
  const int channels = datum.channels();
  const int in_height = datum.height();
  const int in_width = datum.width();
  const int crop = static_cast<int>(param_.crop_size());
  const float scale = param_.scale();
  const bool mirror = param_.mirror() && rng_.UniformInt(2) != 0;

  int height = in_height, width = in_width, h_off = 0, w_off = 0;
  if (crop > 0) {
    height = width = crop;
    if (phase_ == TRAIN) {
      h_off = static_cast<int>(rng_.UniformInt(in_height - crop + 1));
      w_off = static_cast<int>(rng_.UniformInt(in_width - crop + 1));
    } else {
      h_off = (in_height - crop) / 2;
      w_off = (in_width - crop) / 2;
    }
  }

  const float* mean_image = has_mean_file_ ? mean_.data() : nullptr;
  const int means = param_.mean_value_size();
  for (int c = 0; c < channels; ++c) {
    const float channel_mean = means == 0 ? 0.f : param_.mean_value(means == 1 ? 0 : c);
    for (int h = 0; h < height; ++h) {
      for (int w = 0; w < width; ++w) {
        const int64_t in_index =
            (static_cast<int64_t>(c) * in_height + h_off + h) * in_width + w_off + w;
        const int out_w = mirror ? width - 1 - w : w;
        const int64_t out_index = (static_cast<int64_t>(c) * height + h) * width + out_w;
        const float mean = mean_image ? mean_image[in_index] : channel_mean;
        out[out_index] = (DatumValue(datum, in_index) - mean) * scale;
      }
    }
  }
  return Status::Ok();
}

}  // namespace dtrain
