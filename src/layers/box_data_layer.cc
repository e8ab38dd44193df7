#include "layers/box_data_layer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/logging.h"
#include "data/data_server_client.h"
#include "data/image_resize.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

// Draws of Intel's crop before a record counts as one whose boxes no crop can keep. A record
// with a box centre inside the image keeps one with probability at least 1 / 120 per draw.
constexpr int kMaxCropDraws = 10000;

// The first transform_param field BoxData refuses, with why.
Status RefusedTransformField(const TransformationParameter& t) {
  const std::pair<bool, const char*> refused[] = {
      {t.crop_size() > 0 || t.crop_h() > 0 || t.crop_w() > 0, "crop_size"},
      {t.mirror(), "mirror"},
      {t.pad() > 0, "pad"},
      {t.has_resize_param(), "resize_param"},
      {t.has_random_resize_param(), "random_resize_param"},
      {t.has_random_aspect_ratio_param(), "random_aspect_ratio_param"},
      {t.has_distort_param(), "distort_param"},
      {t.has_expand_param(), "expand_param"},
      {t.has_noise_param(), "noise_param"},
      {t.has_emit_constraint(), "emit_constraint"},
  };
  for (const auto& [set, name] : refused) {
    if (set) {
      return InvalidArgument("transform_param." + std::string(name) +
                             " is not supported by BoxData: Intel's BoxData would change the "
                             "image without moving its boxes");
    }
  }
  return Status::Ok();
}

}  // namespace

BoxDataLayer::BoxDataLayer(const LayerParameter& p, const LayerContext& c)
    : PrefetchingDataLayer(p, c), seed_(c.seed) {}

BoxDataLayer::~BoxDataLayer() { StopPrefetching(); }

LayerInputs BoxDataLayer::Inputs(const LayerParameter& p) {
  LayerInputs in;
  in.format = IsDataServerUri(p.data_param().source()) ? RecordsFormat::kDataServer
                                                       : RecordsFormat::kBoxLmdb;
  in.records = p.data_param().source();
  return in;
}

void BoxDataLayer::SetRecords(LayerParameter* p, const std::string& records) {
  p->mutable_data_param()->set_source(records);
}

Status BoxDataLayer::SetUpSource(const TensorVec& top) {
  const DataParameter& data = param_.data_param();
  DT_ASSIGN_OR_RETURN(records_, OpenDataParamRecords(seed_));
  if (top.size() > 2) {
    return Error(
        "one label top at most: Intel's data_param.side (a label top per value) is not "
        "in dtrain's schema");
  }
  const TransformationParameter& transform = param_.transform_param();
  const Status refused = RefusedTransformField(transform);
  if (!refused.ok()) return Error(refused.message());
  if (transform.force_color() && transform.force_gray()) {
    return Error("transform_param: cannot specify both force_color and force_gray");
  }
  color_ = transform.force_color() || data.force_encoded_color() ? ImageColor::kColor
           : transform.force_gray()                              ? ImageColor::kGray
                                                                 : ImageColor::kNative;
  labels_ = top.size() > 1;
  transformer_ = std::make_unique<DataTransformer>(transform, phase_, seed_);
  DT_RETURN_IF_ERROR(WithLayer(transformer_->Init()));

  DT_RETURN_IF_ERROR(WithLayer(records_->ReadAt(0)));
  DT_RETURN_IF_ERROR(WithLayer(ReadRecord()));
  const std::vector<int> shape = transformer_->OutputShape(channels_, height_, width_);
  top_shapes_ = {{batch_size_, shape[0], shape[1], shape[2]}};
  if (labels_) top_shapes_.push_back({batch_size_, kMaxBoxes * kRowSize});
  return Status::Ok();
}

Status BoxDataLayer::ShardChanged(bool started) {
  if (started) offset_ = 0;  // starts over from the first record, as after Setup
  return Status::Ok();
}

Status BoxDataLayer::ReadRecord() {
  const std::string_view bytes = records_->value();
  if (!datum_.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return DataLoss(records_->where_record() + " is not a valid Datum");
  }
  if (!datum_.encoded()) {
    return DataLoss(records_->where_record() +
                    " is not an encoded image: BoxData reads encoded (JPEG/PNG) Datums");
  }
  StatusOr<HwcImage> image = decoder_.Decode(datum_.data(), color_);
  if (!image.ok()) {
    return DataLoss(records_->where_record() + ": encoded image: " + image.status().message());
  }
  channels_ = image->channels;
  height_ = image->height;
  width_ = image->width;
  image_.assign(image->pixels, image->pixels + static_cast<size_t>(channels_) * height_ * width_);
  boxes_.clear();
  if (!labels_) return Status::Ok();
  const int values = datum_.float_data_size();
  if (values == 0 || values % 6 != 0) {
    return DataLoss(records_->where_record() + " holds " + std::to_string(values) +
                    " float_data values, not 6 per box (class, difficult, x, y, w, h) with at "
                    "least one box");
  }
  for (int k = 0; k < values; k += 6) {
    const auto& f = datum_.float_data();
    for (int v = k; v < k + 6; ++v) {
      if (!std::isfinite(f[v])) {
        return DataLoss(records_->where_record() + ": box " + std::to_string(k / 6) +
                        " holds a value that is not finite");
      }
    }
    if (f[k] < 0) {
      return DataLoss(records_->where_record() + ": box " + std::to_string(k / 6) + " has class " +
                      std::to_string(f[k]) + ", below 0");
    }
    boxes_.push_back({f[k], f[k + 1], f[k + 2], f[k + 3], f[k + 4], f[k + 5]});
  }
  return Status::Ok();
}

Status BoxDataLayer::RandomCrop(Rng& rng) {
  const float width = static_cast<float>(width_), height = static_cast<float>(height_);
  if (width_ < 4 || height_ < 4) {
    return DataLoss(records_->where_record() + " is " + std::to_string(width_) + " x " +
                    std::to_string(height_) + ": BoxData's training crops need at least 4 x 4");
  }
  // Each box's integer centre and size in pixels; a centre outside the image is never kept.
  struct Pixels {
    int x, y, w, h;
    bool inside;
  };
  std::vector<Pixels> pixels;
  bool any = false;
  for (const Box& b : boxes_) {
    const float fx = b.x * width, fy = b.y * height, fw = b.w * width, fh = b.h * height;
    const bool inside = fx > -1 && fx < width && fy > -1 && fy < height;
    if (std::fabs(fw) >= 2e9f || std::fabs(fh) >= 2e9f) {
      return DataLoss(records_->where_record() + ": a box's size is out of range");
    }
    pixels.push_back({inside ? static_cast<int>(fx) : 0, inside ? static_cast<int>(fy) : 0,
                      static_cast<int>(fw), static_cast<int>(fh), inside});
    any = any || inside;
  }
  if (!any) {
    return DataLoss(records_->where_record() +
                    ": no box's centre lies inside the image, so no training crop keeps one");
  }
  for (int draw = 0; draw < kMaxCropDraws; ++draw) {
    const float scale = static_cast<float>(1.0 - static_cast<double>(rng.UniformInt(30)) / 100.0);
    const int crop_w = static_cast<int>(width * scale) - 1;
    const int crop_h = static_cast<int>(height * scale) - 1;
    const int x0 = static_cast<int>(rng.UniformInt(static_cast<uint32_t>(width_ - crop_w)));
    const int y0 = static_cast<int>(rng.UniformInt(static_cast<uint32_t>(height_ - crop_h)));
    kept_.clear();
    for (size_t k = 0; k < boxes_.size(); ++k) {
      const Pixels& p = pixels[k];
      if (!p.inside || p.x < x0 || p.x >= x0 + crop_w || p.y < y0 || p.y >= y0 + crop_h) continue;
      kept_.push_back({boxes_[k].label, boxes_[k].difficult,
                       static_cast<float>(p.x - x0) / static_cast<float>(crop_w),
                       static_cast<float>(p.y - y0) / static_cast<float>(crop_h),
                       static_cast<float>(p.w) / static_cast<float>(crop_w),
                       static_cast<float>(p.h) / static_cast<float>(crop_h)});
    }
    if (kept_.empty()) continue;
    const size_t row = static_cast<size_t>(width_) * channels_;
    crop_.resize(static_cast<size_t>(crop_h) * crop_w * channels_);
    for (int y = 0; y < crop_h; ++y) {
      const uint8_t* from =
          image_.data() + (static_cast<size_t>(y0 + y) * row) + static_cast<size_t>(x0) * channels_;
      std::copy(from, from + static_cast<size_t>(crop_w) * channels_,
                crop_.data() + static_cast<size_t>(y) * crop_w * channels_);
    }
    ResizeImage({crop_.data(), channels_, crop_h, crop_w}, height_, width_, Interpolation::kLinear,
                image_.data());
    boxes_.swap(kept_);
    return Status::Ok();
  }
  return DataLoss(records_->where_record() + ": no training crop kept a box in " +
                  std::to_string(kMaxCropDraws) + " draws");
}

Status BoxDataLayer::FillItem(int item, int64_t position, Batch* batch) {
  const int first_channels = channels_, first_height = height_, first_width = width_;
  DT_RETURN_IF_ERROR(ReadRecord());
  if (item == 0) {
    const std::vector<int> shape = transformer_->OutputShape(channels_, height_, width_);
    batch->data.Reshape({batch_size_, shape[0], shape[1], shape[2]});
    if (labels_) batch->label.Reshape({batch_size_, kMaxBoxes * kRowSize});
  } else if (channels_ != first_channels || height_ != first_height || width_ != first_width) {
    return DataLoss(records_->where_record() + " is " + std::to_string(channels_) + "x" +
                    std::to_string(height_) + "x" + std::to_string(width_) +
                    " but this batch's first record is " + std::to_string(first_channels) + "x" +
                    std::to_string(first_height) + "x" + std::to_string(first_width));
  }
  Rng rng(DeriveSeed(seed_, static_cast<uint64_t>(position) + 1));
  if (labels_ && phase_ == TRAIN) DT_RETURN_IF_ERROR(RandomCrop(rng));
  PixelView view{image_.data(), channels_, height_, width_, /*interleaved=*/true};
  const int64_t item_size = batch->data.count(1);
  DT_RETURN_IF_ERROR(
      transformer_->Transform(view, rng, batch->data.mutable_data() + item * item_size)
          .WithContext(records_->where_record()));
  if (!labels_) return Status::Ok();
  float* rows = batch->label.mutable_data() + static_cast<int64_t>(item) * kMaxBoxes * kRowSize;
  std::fill(rows, rows + kMaxBoxes * kRowSize, 0.f);
  const size_t count = std::min(boxes_.size(), static_cast<size_t>(kMaxBoxes));
  for (size_t k = 0; k < count; ++k, rows += kRowSize) {
    const Box& b = boxes_[k];
    rows[0] = b.label;
    rows[1] = b.x;
    rows[2] = b.y;
    rows[3] = b.w;
    rows[4] = b.h;
  }
  return Status::Ok();
}

}  // namespace dtrain
