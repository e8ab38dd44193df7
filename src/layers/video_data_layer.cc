#include "layers/video_data_layer.h"

#include <algorithm>
#include <thread>

#include "core/logging.h"
#include "core/rng.h"
#include "data/resize_policy.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

const char kResizeField[] = "transform_param.resize_param";

}  // namespace

VideoDataLayer::VideoDataLayer(const LayerParameter& p, const LayerContext& c)
    : PrefetchingDataLayer(p, c), seed_(c.seed) {}

VideoDataLayer::~VideoDataLayer() { StopPrefetching(); }

Status VideoDataLayer::OpenVideo() {
  const VideoDataParameter& video = param_.video_data_param();
  if (video.video_file().empty()) return Error("video_data_param.video_file is not set");
  // Decoding threads as ImageData's default: a few, whatever the machine.
  const int threads =
      static_cast<int>(std::min(4u, std::max(1u, std::thread::hardware_concurrency())));
  auto frames = VideoFrameSource::Open(video.video_file(), video.skip_frames(), threads);
  if (!frames.ok()) return WithLayer(frames.status());
  frames_ = std::move(frames).value();
  const VideoFile& file = frames_->video();
  DT_LOG(INFO) << "Opened video " << file.path() << ": " << file.frame_count() << " frames of "
               << file.width() << "x" << file.height() << " (" << file.codec() << "), "
               << frames_->RecordCount() << " read per pass (skip_frames " << video.skip_frames()
               << ")";
  return Status::Ok();
}

Status VideoDataLayer::SetUpTransform() {
  TransformationParameter transform =
      WithLegacyDataFields(param_.transform_param(), param_.data_param());
  resize_.reset();
  if (transform.has_resize_param()) {
    if (transform.has_random_resize_param() || transform.has_random_aspect_ratio_param()) {
      return Error(std::string(kResizeField) + " together with " +
                   (transform.has_random_resize_param()
                        ? "transform_param.random_resize_param"
                        : "transform_param.random_aspect_ratio_param") +
                   " is not supported; give one of them");
    }
    DT_RETURN_IF_ERROR(WithLayer(ValidateResizePolicy(transform.resize_param(), kResizeField)));
    resize_ = std::make_unique<ResizeParameter>(transform.resize_param());
    transform.clear_resize_param();  // applied here, before the transformer
  }
  transformer_ = std::make_unique<DataTransformer>(transform, phase_, DeriveSeed(seed_, 0));
  return WithLayer(transformer_->Init());
}

Status VideoDataLayer::SetUpSource(const TensorVec& top) {
  const VideoDataParameter& video = param_.video_data_param();
  if (video.video_type() == VideoDataParameter::WEBCAM) {
    return Unsupported("layer '" + name() +
                       "' (VideoData): video_data_param.video_type WEBCAM (a camera) is not "
                       "supported: dtrain reads video files; set video_type: VIDEO and "
                       "video_file" +
                       (video.has_video_type() ? "" : " (WEBCAM is the field's default)"));
  }
  const DataParameter& data = param_.data_param();
  if (data.batch_size() == 0) return Error("data_param.batch_size must be positive");
  DT_ASSIGN_OR_RETURN(batch_size_, Dimension("data_param.batch_size", data.batch_size()));
  prefetch_depth_ = std::max(1, static_cast<int>(data.prefetch()));
  told_wrap_ = false;
  DT_RETURN_IF_ERROR(SetUpTransform());
  DT_RETURN_IF_ERROR(OpenVideo());

  // The shape from frame 0, as Intel's layer infers it; resize_param's size where it resizes.
  const VideoFile& file = frames_->video();
  int height = file.height(), width = file.width();
  if (resize_) {
    const ImageSize size = ResizedSize(*resize_, height, width);
    if (size.height < 1 || size.width < 1 || size.height * size.width > kMaxAugmentedPixels) {
      return Error(std::string(kResizeField) + " makes the frames of video '" + file.path() + "' " +
                   std::to_string(size.width) + "x" + std::to_string(size.height) +
                   " (width x height), outside 1 to " + std::to_string(kMaxAugmentedPixels) +
                   " pixels");
    }
    height = static_cast<int>(size.height);
    width = static_cast<int>(size.width);
  }
  const Status fits = transformer_->CheckFits(3, height, width);
  if (!fits.ok()) return WithLayer(fits.WithContext("video '" + file.path() + "'"));
  const std::vector<int> shape = transformer_->OutputShape(3, height, width);
  const std::vector<int> batch = {batch_size_, shape[0], shape[1], shape[2]};
  // Refused here, naming the video, rather than when the batch is allocated.
  const Status batch_fits = CheckTensorShape(batch);
  if (!batch_fits.ok()) {
    return Error("video '" + file.path() + "': a batch of " + std::to_string(batch_size_) +
                 " frames (data_param.batch_size): " + batch_fits.message());
  }
  top_shapes_ = {batch, {batch_size_}};
  item_size_ = static_cast<int64_t>(shape[0]) * shape[1] * shape[2];
  DT_LOG(INFO) << "output data size: " << batch[0] << "," << batch[1] << "," << batch[2] << ","
               << batch[3];
  return Status::Ok();
}

Status VideoDataLayer::FillItem(int item, int64_t position, Batch* batch) {
  if (!told_wrap_ && position >= frames_->RecordCount()) {
    told_wrap_ = true;
    DT_LOG(INFO) << "layer '" << name() << "' (VideoData): end of video '"
                 << frames_->video().path() << "', reading it again from its first frame";
  }
  if (item == 0) {
    batch->data.Reshape(top_shapes_[0]);
    batch->label.Reshape(top_shapes_[1]);
  }
  // Every draw of a frame depends only on its position: shards and resumes draw what one reader
  // of the whole sequence draws.
  Rng rng(DeriveSeed(seed_, static_cast<uint64_t>(position) + 1));
  const Image8* image = &frames_->frame();
  if (resize_) {
    const Interpolation interpolation = PickInterpolation(*resize_, rng);
    const Status resized =
        ApplyResizePolicy(*resize_, interpolation, *image, &resized_, kResizeField);
    if (!resized.ok()) return resized.WithContext(frames_->where_frame());
    image = &resized_;
  }
  const PixelView view{image->pixels.data(), image->channels, image->height, image->width,
                       /*interleaved=*/true};
  const Status status =
      transformer_->Transform(view, rng, batch->data.mutable_data() + item * item_size_);
  if (!status.ok()) return status.WithContext(frames_->where_frame());
  batch->label.mutable_data()[item] = 0.f;
  return Status::Ok();
}

LayerInputs VideoDataLayer::Inputs(const LayerParameter& p) {
  const VideoDataParameter& video = p.video_data_param();
  LayerInputs in;
  // A camera (WEBCAM, refused at setup) names no file.
  if (video.video_type() == VideoDataParameter::VIDEO && !video.video_file().empty()) {
    in.format = RecordsFormat::kVideoFile;
    in.records = video.video_file();
  }
  if (p.data_param().has_mean_file()) in.files.push_back(p.data_param().mean_file());
  return in;
}

void VideoDataLayer::SetRecords(LayerParameter* p, const std::string& records) {
  p->mutable_video_data_param()->set_video_file(records);
}

}  // namespace dtrain
