#include "layers/image_data_layer.h"

#include <algorithm>
#include <exception>
#include <thread>

#include "core/file_bytes.h"
#include "core/logging.h"
#include "proto/net.pb.h"

namespace dtrain {

ImageDataLayer::ImageDataLayer(const LayerParameter& p, const LayerContext& c)
    : PrefetchingDataLayer(p, c), seed_(c.seed) {}

ImageDataLayer::~ImageDataLayer() { StopPrefetching(); }

std::string ImageDataLayer::Where(const ImageListEntry& entry) const {
  return list_path_ + ":" + std::to_string(entry.line) + ": image '" +
         param_.image_data_param().root_folder() + entry.path + "'";
}

Status ImageDataLayer::SetUpSource(const TensorVec& top) {
  const ImageDataParameter& image = param_.image_data_param();
  if (image.source().empty()) return Error("image_data_param.source is not set");
  if (image.batch_size() == 0) return Error("image_data_param.batch_size must be positive");
  if ((image.new_height() > 0) != (image.new_width() > 0)) {
    return Error("image_data_param: set new_height and new_width together (got " +
                 std::to_string(image.new_height()) + " and " + std::to_string(image.new_width()) +
                 ")");
  }
  DT_ASSIGN_OR_RETURN(batch_size_, Dimension("image_data_param.batch_size", image.batch_size()));
  prefetch_depth_ = std::max(1, static_cast<int>(image.prefetch()));
  skip_bad_ = image.skip_bad_images();
  color_ = image.is_color() ? ImageColor::kColor : ImageColor::kGray;
  DT_ASSIGN_OR_RETURN(new_height_,
                      Dimension("image_data_param.new_height", image.new_height(), false));
  DT_ASSIGN_OR_RETURN(new_width_,
                      Dimension("image_data_param.new_width", image.new_width(), false));
  if (new_height_ > 0) {
    // The batch a resize makes, refused before any image is decoded at that size.
    const Status fits =
        CheckTensorShape({batch_size_, image.is_color() ? 3 : 1, new_height_, new_width_});
    if (!fits.ok()) return Error("image_data_param.new_height/new_width: " + fits.message());
  }
  list_path_ = image.source();

  TransformationParameter transform = param_.transform_param();
  if (image.has_scale() && !transform.has_scale()) transform.set_scale(image.scale());
  if (image.has_mean_file() && !transform.has_mean_file()) {
    transform.set_mean_file(image.mean_file());
  }
  if (image.has_crop_size() && !transform.has_crop_size()) {
    transform.set_crop_size(image.crop_size());
  }
  if (image.has_mirror() && !transform.has_mirror()) transform.set_mirror(image.mirror());
  transformer_ = std::make_unique<DataTransformer>(transform, phase_, DeriveSeed(seed_, 0));
  DT_RETURN_IF_ERROR(WithLayer(transformer_->Init()));

  const uint32_t skip = image.rand_skip() > 0 ? rng_.Next() % image.rand_skip() : 0;
  StatusOr<std::unique_ptr<ImageListSource>> list =
      ImageListSource::Open(list_path_, skip, image.shuffle(), seed_);
  if (!list.ok()) return WithLayer(list.status());
  list_ = std::move(list).value();
  DT_LOG(INFO) << "A total of " << list_->RecordCount() << " images.";
  if (skip > 0) DT_LOG(INFO) << "Skipping first " << skip << " data points.";

  int threads = static_cast<int>(image.decode_threads());
  if (threads == 0) {
    threads = static_cast<int>(std::min(4u, std::max(1u, std::thread::hardware_concurrency())));
  }
  pool_ = std::make_unique<ThreadPool>(threads);
  workers_.clear();
  for (int i = 0; i < threads; ++i) workers_.push_back(std::make_unique<Worker>());
  slots_.assign(batch_size_, Slot());
  todo_.reserve(batch_size_);
  again_.reserve(batch_size_);

  // The output shape, from the first image this layer reads (Caffe reads it at setup too).
  bad_images_ = 0;
  int skipped = 0;
  for (int64_t position = shard_index_;; position += shard_count_) {
    const ImageListEntry& entry = list_->EntryAt(position);
    StatusOr<HwcImage> decoded = Decode(entry, *workers_[0]);
    Status status = decoded.status();
    if (decoded.ok()) {
      status = transformer_->CheckFits(decoded->channels, decoded->height, decoded->width);
    }
    if (status.ok()) {
      const std::vector<int> shape =
          transformer_->OutputShape(decoded->channels, decoded->height, decoded->width);
      top_shapes_ = {{batch_size_, shape[0], shape[1], shape[2]}, {batch_size_}};
      break;
    }
    status = status.WithContext(Where(entry));
    if (!skip_bad_ || ++skipped >= static_cast<int>(list_->RecordCount())) return WithLayer(status);
    DT_LOG(WARNING) << "layer '" << name()
                    << "' (ImageData): at setup, skipping bad image: " << status.message();
  }
  bad_images_ = consumed_bad_images_ = 0;
  const std::vector<int>& shape = top_shapes_[0];
  DT_LOG(INFO) << "output data size: " << shape[0] << "," << shape[1] << "," << shape[2] << ","
               << shape[3] << " (" << threads << " decode threads)";
  return Status::Ok();
}

Status ImageDataLayer::ShardChanged(bool started) {
  offset_ = 0;
  bad_images_ = consumed_bad_images_ = 0;
  return Status::Ok();
}

StatusOr<HwcImage> ImageDataLayer::Decode(const ImageListEntry& entry, Worker& worker) const {
  DT_RETURN_IF_ERROR(
      ReadFileInto(param_.image_data_param().root_folder() + entry.path, &worker.bytes));
  return worker.decoder.Decode(worker.bytes, color_, new_height_, new_width_);
}

Status ImageDataLayer::TransformInto(const Slot& slot, const HwcImage& image, float* out) const {
  // The random crop and mirror of an image depend only on its position in the sequence, so that
  // thread count and sharding change nothing (as DataLayer does).
  Rng rng(DeriveSeed(seed_, static_cast<uint64_t>(slot.position) + 1));
  return transformer_->Transform(
      PixelView{image.pixels, image.channels, image.height, image.width, true}, rng, out);
}

Status ImageDataLayer::InContext(const Status& status, const ImageListEntry& entry) const {
  return status.ok() ? status : status.WithContext(Where(entry));
}

Status ImageDataLayer::LoadItem(const Slot& slot, Worker& worker, const HwcImage* like,
                                float* out) const {
  StatusOr<HwcImage> image = Decode(*slot.entry, worker);
  if (!image.ok()) return InContext(image.status(), *slot.entry);
  if (like && (image->channels != like->channels || image->height != like->height ||
               image->width != like->width)) {
    return InContext(
        DataLoss("is " + std::to_string(image->channels) + "x" + std::to_string(image->height) +
                 "x" + std::to_string(image->width) + " but this batch's first image is " +
                 std::to_string(like->channels) + "x" + std::to_string(like->height) + "x" +
                 std::to_string(like->width) +
                 " (set new_height/new_width or crop_size for images of mixed sizes)"),
        *slot.entry);
  }
  return InContext(TransformInto(slot, *image, out), *slot.entry);
}

Status ImageDataLayer::SkipBadImage(const Status& status, int* skipped_in_batch) {
  ++bad_images_;
  if (++*skipped_in_batch > static_cast<int>(list_->RecordCount())) {
    return DataLoss(std::to_string(*skipped_in_batch) + " bad images while filling one batch, " +
                    "more than the " + std::to_string(list_->RecordCount()) +
                    " listed; the last: " + status.message());
  }
  DT_LOG(WARNING) << "layer '" << name() << "' (ImageData): skipping bad image (" << bad_images_
                  << " skipped so far): " << status.message();
  return Status::Ok();
}

void ImageDataLayer::Assign(Slot* slot) {
  slot->position = NextPosition();
  slot->entry = &list_->EntryAt(slot->position);
}

Status ImageDataLayer::LoadBatch(Batch* batch) {
  for (Slot& slot : slots_) Assign(&slot);
  int skipped_in_batch = 0;
  // A bad image: the error (fail mode), or counted and replaced by the next position.
  auto handle_bad = [&](Slot* slot, const Status& status) -> Status {
    if (!skip_bad_) return status;
    DT_RETURN_IF_ERROR(SkipBadImage(status, &skipped_in_batch));
    Assign(slot);
    return Status::Ok();
  };

  // The shape of one transformed image: fixed by crop_size or new_height/new_width, else that
  // of the batch's first image (decoded and transformed here, before the others).
  std::vector<int> shape(top_shapes_[0].begin() + 1, top_shapes_[0].end());
  int first = 0;
  const bool fixed = transformer_->param().crop_size() > 0 || new_height_ > 0;
  const HwcImage* first_image = nullptr;
  HwcImage decoded;
  while (!fixed && !first_image) {
    Slot& slot = slots_[0];
    StatusOr<HwcImage> image = Decode(*slot.entry, *workers_[0]);
    Status status = image.status();
    if (status.ok()) {
      status = transformer_->CheckFits(image->channels, image->height, image->width);
    }
    if (status.ok()) {
      decoded = *image;
      first_image = &decoded;
      shape = transformer_->OutputShape(decoded.channels, decoded.height, decoded.width);
    } else {
      DT_RETURN_IF_ERROR(handle_bad(&slot, InContext(status, *slot.entry)));
    }
  }
  batch->data.Reshape({batch_size_, shape[0], shape[1], shape[2]});
  batch->label.Reshape({batch_size_});
  const int64_t item_size = batch->data.count(1);
  float* data = batch->data.mutable_data();
  float* label = batch->label.mutable_data();
  if (first_image) {
    DT_RETURN_IF_ERROR(InContext(TransformInto(slots_[0], *first_image, data), *slots_[0].entry));
    label[0] = static_cast<float>(slots_[0].entry->label);
    first = 1;
  }

  // The slots still to fill; a round refills the bad ones (skip_bad_images) with new positions.
  std::vector<int>& todo = todo_;
  std::vector<int>& again = again_;
  todo.clear();
  for (int i = first; i < batch_size_; ++i) todo.push_back(i);
  while (!todo.empty()) {
    pool_->ParallelFor(static_cast<int>(todo.size()), [&](int k, int worker) {
      Slot& slot = slots_[todo[k]];
      slot.status = LoadItem(slot, *workers_[worker], first_image, data + todo[k] * item_size);
    });
    // In slot order, so that which error is reported and which positions replace bad images do
    // not depend on the threads.
    again.clear();
    for (int i : todo) {
      Slot& slot = slots_[i];
      if (slot.status.ok()) {
        label[i] = static_cast<float>(slot.entry->label);
        continue;
      }
      DT_RETURN_IF_ERROR(handle_bad(&slot, slot.status));
      again.push_back(i);
    }
    todo.swap(again);
  }
  batch->state = LoaderState();
  return Status::Ok();
}

// As DataLayer: sharded, the position saved is the start of the next round of shard_count
// positions, the same on every shard when no image was skipped.
std::string ImageDataLayer::LoaderState() const {
  return std::to_string(RoundStart()) + "\n" + std::to_string(bad_images_);
}

Status ImageDataLayer::RestoreLoader(const std::string& state) {
  const size_t newline = state.find('\n');
  if (newline == std::string::npos) return CorruptState();
  const int64_t position = ParsePosition(state.substr(0, newline));
  const int64_t bad = ParsePosition(state.substr(newline + 1));
  if (position < 0 || bad < 0) return CorruptState();
  offset_ = position;
  bad_images_ = consumed_bad_images_ = bad;
  return Status::Ok();
}

void ImageDataLayer::BatchConsumed(const Batch& batch) {
  consumed_bad_images_ = std::stoll(batch.state.substr(batch.state.find('\n') + 1));
}

LayerInputs ImageDataLayer::Inputs(const LayerParameter& p) {
  const ImageDataParameter& image = p.image_data_param();
  LayerInputs in;
  in.format = RecordsFormat::kImageList;
  in.records = image.source();
  in.root_folder = image.root_folder();
  if (image.has_mean_file()) in.files.push_back(image.mean_file());
  return in;
}

void ImageDataLayer::SetRecords(LayerParameter* p, const std::string& records) {
  p->mutable_image_data_param()->set_source(records);
}

}  // namespace dtrain
