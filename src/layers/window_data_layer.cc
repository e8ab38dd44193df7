#include "layers/window_data_layer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/file_bytes.h"
#include "core/logging.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

constexpr int kMaxCropSize = 1 << 14;

int RoundToInt(float value) { return static_cast<int>(std::round(value)); }

// Where the warped window goes in the crop_size x crop_size output: the image region read
// (x1..x2, y1..y2, inclusive), the size it is resized to, and the padding before it.
struct Placement {
  int x1, y1, x2, y2;
  int width, height;  // of the resized region; <= 0 leaves the output all padding
  int pad_w, pad_h;
};

}  // namespace

WindowDataLayer::WindowDataLayer(const LayerParameter& p, const LayerContext& c)
    : PrefetchingDataLayer(p, c), seed_(c.seed) {}

WindowDataLayer::~WindowDataLayer() { StopPrefetching(); }

std::string WindowDataLayer::Where(const Window& window) const {
  return source_ + ":" + std::to_string(window.line) + ": window of image '" + root_ +
         windows_.images[window.image].path + "'";
}

Status WindowDataLayer::CheckMean() const {
  const Tensor* mean = transformer_->mean_image();
  const TransformationParameter& t = transformer_->param();
  if (mean) {
    if (mean->shape(0) != channels_ || mean->shape(1) != mean->shape(2) ||
        mean->shape(1) < crop_size_) {
      return Error("mean_file '" + t.mean_file() + "' is " + mean->ShapeString() + "; WindowData " +
                   "needs a square mean of " + std::to_string(channels_) +
                   " channels at least crop_size (" + std::to_string(crop_size_) + ") wide");
    }
  }
  if (t.mean_value_size() > 1 && t.mean_value_size() != channels_) {
    return Error("transform_param has " + std::to_string(t.mean_value_size()) +
                 " mean_values for " + std::to_string(channels_) + "-channel images");
  }
  return Status::Ok();
}

Status WindowDataLayer::SetUpSource(const TensorVec& top) {
  const WindowDataParameter& w = param_.window_data_param();
  if (w.source().empty()) return Error("window_data_param.source is not set");
  if (w.batch_size() == 0) return Error("window_data_param.batch_size must be positive");
  if (w.batch_size() > (1u << 20)) {
    return Error("window_data_param.batch_size " + std::to_string(w.batch_size()) +
                 " is more than the 1048576 a batch may hold");
  }
  if (!(w.fg_fraction() >= 0 && w.fg_fraction() <= 1)) {
    return Error("window_data_param.fg_fraction must be in [0, 1], got " +
                 std::to_string(w.fg_fraction()));
  }
  if (w.crop_mode() != "warp" && w.crop_mode() != "square") {
    return Error("window_data_param.crop_mode must be \"warp\" or \"square\", got \"" +
                 w.crop_mode() + "\"");
  }
  TransformationParameter transform = param_.transform_param();
  // Caffe's WindowData scales by window_data_param.scale alone (default 1): transform_param.scale
  // does nothing there, and so here, which says so.
  if (transform.has_scale()) {
    DT_LOG(WARNING) << "layer '" << param_.name() << "' (WindowData): transform_param.scale "
                    << transform.scale()
                    << " is not applied (Caffe's WindowData reads window_data_param.scale only, "
                       "here "
                    << w.scale() << ")";
    transform.clear_scale();
  }
  for (const auto& [set, field] :
       {std::pair<bool, const char*>{transform.has_random_resize_param(), "random_resize_param"},
        {transform.has_random_aspect_ratio_param(), "random_aspect_ratio_param"},
        {transform.pad() > 0, "pad"}}) {
    if (set) {
      return Error(std::string("transform_param.") + field +
                   ": Intel Caffe's WindowData never applies it (it warps each window itself)");
    }
  }
  if (w.has_mean_file() && !transform.has_mean_file()) transform.set_mean_file(w.mean_file());
  if (w.has_crop_size() && !transform.has_crop_size()) transform.set_crop_size(w.crop_size());
  if (w.has_mirror() && !transform.has_mirror()) transform.set_mirror(w.mirror());
  if (transform.crop_size() == 0 || transform.crop_size() > kMaxCropSize) {
    return Error("transform_param.crop_size must be in [1, " + std::to_string(kMaxCropSize) +
                 "] (WindowData warps every window to crop_size x crop_size), got " +
                 std::to_string(transform.crop_size()));
  }
  crop_size_ = static_cast<int>(transform.crop_size());
  if (2 * static_cast<int64_t>(w.context_pad()) >= crop_size_) {
    return Error("window_data_param.context_pad " + std::to_string(w.context_pad()) +
                 " leaves no room in a crop of " + std::to_string(crop_size_) +
                 " (2 * context_pad must be less than crop_size)");
  }
  transformer_ = std::make_unique<DataTransformer>(transform, phase_, DeriveSeed(seed_, 0));
  DT_RETURN_IF_ERROR(WithLayer(transformer_->Init()));

  source_ = w.source();
  root_ = w.root_folder();
  batch_size_ = static_cast<int>(w.batch_size());
  foreground_per_batch_ = static_cast<int>(static_cast<float>(batch_size_) * w.fg_fraction());
  context_pad_ = static_cast<int>(w.context_pad());
  square_ = w.crop_mode() == "square";
  mirror_ = transform.mirror();
  scale_ = w.scale();
  cache_ = w.cache_images();

  StatusOr<WindowFile> file = ReadWindowFile(source_, w.fg_threshold(), w.bg_threshold());
  if (!file.ok()) return WithLayer(file.status());
  windows_ = std::move(file).value();
  channels_ = windows_.images[0].channels;
  if (foreground_per_batch_ > 0 && windows_.foreground.empty()) {
    return Error("window file '" + source_ +
                 "' has no foreground window (overlap >= " + std::to_string(w.fg_threshold()) +
                 ") to fill " + std::to_string(foreground_per_batch_) + " places of each batch");
  }
  if (foreground_per_batch_ < batch_size_ && windows_.background.empty()) {
    return Error("window file '" + source_ + "' has no background window (overlap < " +
                 std::to_string(w.bg_threshold()) + ") to fill " +
                 std::to_string(batch_size_ - foreground_per_batch_) + " places of each batch");
  }
  DT_RETURN_IF_ERROR(CheckMean());
  cached_.assign(cache_ ? windows_.images.size() : 0, std::string());
  DT_LOG(INFO) << "WindowData '" << name() << "': " << windows_.images.size() << " images, "
               << windows_.foreground.size() << " foreground and " << windows_.background.size()
               << " background windows; " << foreground_per_batch_ << " of " << batch_size_
               << " per batch foreground";
  top_shapes_ = {{batch_size_, channels_, crop_size_, crop_size_}, {batch_size_}};
  next_batch_ = 0;
  return Status::Ok();
}

Status WindowDataLayer::RestoreLoader(const std::string& state) {
  char* end = nullptr;
  const long long batches = std::strtoll(state.c_str(), &end, 10);
  if (state.empty() || *end != '\0' || batches < 0) {
    return DataLoss("corrupt data position '" + state + "' for layer '" + name() + "'");
  }
  next_batch_ = batches;
  return Status::Ok();
}

StatusOr<HwcImage> WindowDataLayer::DecodeImage(int index) {
  const std::string path = root_ + windows_.images[index].path;
  const std::string* bytes = &bytes_;
  if (cache_ && !cached_[index].empty()) {
    bytes = &cached_[index];
  } else {
    DT_RETURN_IF_ERROR(ReadFileInto(path, &bytes_).WithContext("image '" + path + "'"));
    if (cache_) cached_[index] = bytes_;
  }
  const ImageColor color = channels_ == 1 ? ImageColor::kGray : ImageColor::kColor;
  StatusOr<HwcImage> image = decoder_.Decode(*bytes, color);
  if (!image.ok()) return image.status().WithContext("image '" + path + "'");
  return image;
}

Status WindowDataLayer::LoadWindow(const Window& window, bool mirror, float* data) {
  StatusOr<HwcImage> decoded = DecodeImage(window.image);
  if (!decoded.ok()) {
    return decoded.status().WithContext(source_ + ":" + std::to_string(window.line));
  }
  const HwcImage image = *decoded;
  Placement at{window.x1, window.y1, window.x2, window.y2, crop_size_, crop_size_, 0, 0};
  if (context_pad_ > 0 || square_) {
    // Grow the window so that, warped to crop_size, context_pad pixels of context surround it;
    // Caffe's arithmetic, in float.
    const float context_scale =
        static_cast<float>(crop_size_) / static_cast<float>(crop_size_ - 2 * context_pad_);
    float half_height = static_cast<float>(at.y2 - at.y1 + 1) / 2.0f;
    float half_width = static_cast<float>(at.x2 - at.x1 + 1) / 2.0f;
    const float center_x = static_cast<float>(at.x1) + half_width;
    const float center_y = static_cast<float>(at.y1) + half_height;
    if (square_) half_width = half_height = std::max(half_width, half_height);
    at.x1 = RoundToInt(center_x - half_width * context_scale);
    at.x2 = RoundToInt(center_x + half_width * context_scale);
    at.y1 = RoundToInt(center_y - half_height * context_scale);
    at.y2 = RoundToInt(center_y + half_height * context_scale);
    // Clip to the image, remembering how much was cut on each side.
    const int unclipped_height = at.y2 - at.y1 + 1;
    const int unclipped_width = at.x2 - at.x1 + 1;
    int pad_x1 = std::max(0, -at.x1), pad_y1 = std::max(0, -at.y1);
    int pad_x2 = std::max(0, at.x2 - image.width + 1),
        pad_y2 = std::max(0, at.y2 - image.height + 1);
    at.x1 += pad_x1;
    at.x2 -= pad_x2;
    at.y1 += pad_y1;
    at.y2 -= pad_y2;
    if (at.x1 > at.x2 || at.y1 > at.y2) {
      return DataLoss(Where(window) + ": the window lies outside the " +
                      std::to_string(image.width) + " x " + std::to_string(image.height) +
                      " image");
    }
    const float scale_x = static_cast<float>(crop_size_) / static_cast<float>(unclipped_width);
    const float scale_y = static_cast<float>(crop_size_) / static_cast<float>(unclipped_height);
    at.width = RoundToInt(static_cast<float>(at.x2 - at.x1 + 1) * scale_x);
    at.height = RoundToInt(static_cast<float>(at.y2 - at.y1 + 1) * scale_y);
    pad_x1 = RoundToInt(static_cast<float>(pad_x1) * scale_x);
    pad_x2 = RoundToInt(static_cast<float>(pad_x2) * scale_x);
    pad_y1 = RoundToInt(static_cast<float>(pad_y1) * scale_y);
    at.pad_h = pad_y1;
    at.pad_w = mirror ? pad_x2 : pad_x1;  // the padding is mirrored with the window
    // Rounding may make the region and its padding overflow the crop.
    at.height = std::min(at.height, crop_size_ - at.pad_h);
    at.width = std::min(at.width, crop_size_ - at.pad_w);
  } else if (at.x2 >= image.width || at.y2 >= image.height) {
    return DataLoss(Where(window) + ": window (" + std::to_string(window.x1) + ", " +
                    std::to_string(window.y1) + ", " + std::to_string(window.x2) + ", " +
                    std::to_string(window.y2) + ") reaches outside the " +
                    std::to_string(image.width) + " x " + std::to_string(image.height) + " image");
  }
  if (at.width <= 0 || at.height <= 0) return Status::Ok();

  // The region of interest, as its own image, then warped.
  const int c = image.channels;
  const int roi_width = at.x2 - at.x1 + 1, roi_height = at.y2 - at.y1 + 1;
  roi_.resize(static_cast<size_t>(roi_width) * roi_height * c);
  for (int y = 0; y < roi_height; ++y) {
    std::memcpy(&roi_[static_cast<size_t>(y) * roi_width * c],
                image.pixels + (static_cast<size_t>(at.y1 + y) * image.width + at.x1) * c,
                static_cast<size_t>(roi_width) * c);
  }
  warped_.resize(static_cast<size_t>(at.width) * at.height * c);
  ResizeBilinear(HwcImage{roi_.data(), c, roi_height, roi_width}, at.height, at.width,
                 warped_.data(), &resize_scratch_);

  const Tensor* mean = transformer_->mean_image();
  const auto& mean_values = transformer_->param().mean_value();
  const int mean_side = mean ? mean->shape(1) : 0;
  const int mean_off = (mean_side - crop_size_) / 2;
  for (int h = 0; h < at.height; ++h) {
    for (int w = 0; w < at.width; ++w) {
      const int source_w = mirror ? at.width - 1 - w : w;
      const uint8_t* pixel = &warped_[(static_cast<size_t>(h) * at.width + source_w) * c];
      for (int k = 0; k < c; ++k) {
        const int y = h + at.pad_h, x = w + at.pad_w;
        float value = static_cast<float>(pixel[k]);
        if (mean) {
          value -= mean->data()[(static_cast<int64_t>(k) * mean_side + y + mean_off) * mean_side +
                                x + mean_off];
        } else if (!mean_values.empty()) {
          value -= mean_values.size() == 1 ? mean_values[0] : mean_values[k];
        }
        data[(static_cast<int64_t>(k) * crop_size_ + y) * crop_size_ + x] = value * scale_;
      }
    }
  }
  return Status::Ok();
}

Status WindowDataLayer::LoadBatch(Batch* batch) {
  batch->data.Reshape({batch_size_, channels_, crop_size_, crop_size_});
  batch->label.Reshape({batch_size_});
  float* data = batch->data.mutable_data();
  float* label = batch->label.mutable_data();
  std::fill(data, data + batch->data.count(), 0.f);
  const int64_t item_size = batch->data.count(1);
  Rng rng(DeriveSeed(seed_, static_cast<uint64_t>(next_batch_ * shard_count_ + shard_index_)));
  // Background windows first, then foreground, as Caffe fills a batch.
  for (int item = 0; item < batch_size_; ++item) {
    const std::vector<Window>& pool =
        item < batch_size_ - foreground_per_batch_ ? windows_.background : windows_.foreground;
    const Window& window = pool[rng.Next() % pool.size()];
    const bool mirror = mirror_ && rng.Next() % 2 == 1;
    DT_RETURN_IF_ERROR(LoadWindow(window, mirror, data + item * item_size));
    label[item] = static_cast<float>(window.label);
  }
  ++next_batch_;
  batch->state = std::to_string(next_batch_);
  return Status::Ok();
}

LayerInputs WindowDataLayer::Inputs(const LayerParameter& p) {
  const WindowDataParameter& window = p.window_data_param();
  LayerInputs in;
  in.format = RecordsFormat::kWindowFile;
  in.records = window.source();
  in.root_folder = window.root_folder();
  if (window.has_mean_file()) in.files.push_back(window.mean_file());
  return in;
}

void WindowDataLayer::SetRecords(LayerParameter* p, const std::string& records) {
  p->mutable_window_data_param()->set_source(records);
}

}  // namespace dtrain
