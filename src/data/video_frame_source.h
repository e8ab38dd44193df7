// VideoFrameSource: the frames Intel Caffe's VideoData layer reads from a video file
// (data/video_file.h), as a RecordSource.
//
// skip_frames s: Intel's layer skips s frames before each frame it reads, so one pass over the
// video reads frames s, 2s + 1, 3s + 2, ...: record r is frame r (s + 1) + s, and a pass holds
// floor(frames / (s + 1)) records (the frames after the last whole group of s + 1 are passed over).
// Position p is record p mod that count: after its last record the video is read again from its
// first frame, an epoch per pass (Intel's layer stops the program there instead). A video with
// fewer than s + 1 frames has no record and is refused by Open.
//
// ReadAt decodes forward from the frame last read (every frame, skipped ones and other shards'
// included, since inter-coded frames need the ones before them) and converts only the record's
// frame; an earlier position reopens the file (VideoFile::Seek). So a shard of n reads the whole
// video, converting one record in n, and a resume decodes from the first frame to its position.
// Errors name the file (and the frame). One thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "data/record_source.h"
#include "data/video_file.h"

namespace dtrain {

class VideoFrameSource : public RecordSource {
 public:
  // Opens `path` (VideoFile::Open, decoding with up to `threads` threads), skipping `skip_frames`
  // frames before each one read.
  static StatusOr<std::unique_ptr<VideoFrameSource>> Open(const std::string& path,
                                                          uint32_t skip_frames, int threads);

  int64_t RecordCount() const override { return records_; }
  Status ReadAt(int64_t position) override;

  // The frame of a record of the pass (0 <= record < RecordCount()).
  int64_t FrameOf(int64_t record) const { return record * (skip_ + 1) + skip_; }
  // The frame ReadAt made current (BGR, video().height() x video().width() x 3).
  const Image8& frame() const { return video_->frame(); }
  const VideoFile& video() const { return *video_; }
  // "video 'path': frame N": the current frame, for messages.
  std::string where_frame() const;

 private:
  VideoFrameSource() = default;

  std::unique_ptr<VideoFile> video_;
  int64_t skip_ = 0;
  int64_t records_ = 0;
};

}  // namespace dtrain
