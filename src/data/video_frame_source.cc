#include "data/video_frame_source.h"

namespace dtrain {

StatusOr<std::unique_ptr<VideoFrameSource>> VideoFrameSource::Open(const std::string& path,
                                                                   uint32_t skip_frames,
                                                                   int threads) {
  std::unique_ptr<VideoFrameSource> source(new VideoFrameSource());
  DT_ASSIGN_OR_RETURN(source->video_, VideoFile::Open(path, threads));
  source->skip_ = skip_frames;
  const int64_t frames = source->video_->frame_count();
  source->records_ = frames / (source->skip_ + 1);
  if (source->records_ == 0) {
    return InvalidArgument("video '" + path + "' has " + std::to_string(frames) +
                           " frame(s), fewer than video_data_param.skip_frames + 1 (" +
                           std::to_string(source->skip_ + 1) + "): no frame is read");
  }
  return source;
}

Status VideoFrameSource::ReadAt(int64_t position) {
  return video_->Seek(FrameOf(position % records_));
}

std::string VideoFrameSource::where_frame() const {
  return "video '" + video_->path() + "': frame " + std::to_string(video_->frame_index());
}

}  // namespace dtrain
