// VideoFile: the frames of one video file as 8-bit BGR images, the pixels OpenCV's VideoCapture
// gives Intel Caffe's VideoData layer; the one place in dtrain that calls FFmpeg (libavformat,
// libavcodec, libswscale, libavutil).
//
// Open reads the container, takes its best video stream (av_find_best_stream's choice), counts
// the stream's frames and decodes frame 0, whose size every frame must have. Frames are numbered
// 0, 1, ... in the order the decoder gives them: presentation order, B-frames reordered.
//
// Counting: one pass over the file reading packets, without decoding (fast even for long videos):
// a frame per non-empty packet of the stream, which holds for the codecs and containers in use
// (each packet is one coded picture). A stream that decodes to fewer frames than it has packets
// (a damaged stream, a cut one starting between key frames) is found when decoding reaches its
// end, and is an error there, naming both counts.
//
// Seek(index) makes frame `index` (< frame_count()) the current one, frame(): it decodes forward
// from where the decoder is, converting only that frame; an earlier index reopens the file and
// decodes from frame 0, so that a frame's pixels never depend on the frames read before it
// (a reopened file decodes exactly as a fresh one: resumes and shards see the same pixels).
// Conversion: libswscale to BGR24 with SWS_BICUBIC and swscale's default colour matrix and range,
// OpenCV's FFmpeg backend's settings; the alpha of a frame is dropped and gray is replicated, as
// VideoCapture's 3-channel frames.
//
// Size checks, before anything is decoded: the stream header's frame size against this machine's
// memory (as a 3 x H x W float tensor, what one transformed frame takes; core/tensor.h) and
// against FFmpeg's own limit (av_image_check_size).
//
// Errors name the file ("video 'a.mp4': ..."): a missing or unreadable file, one FFmpeg cannot
// read as a container, no video stream, no decoder for its codec, no frames, an absurd size, a
// frame of another size, a packet the decoder refuses (naming the frame), an early end.
//
// FFmpeg's log prints nothing (as OpenCV keeps it): its last error message on the calling thread
// is added to the error that follows it ("...; FFmpeg: moov atom not found"). The log callback
// is process-wide (av_log_set_callback, installed by the first Open; dtrain has no other FFmpeg
// user). Decoding may use up to `threads` FFmpeg threads inside a Seek; the object itself is used
// by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"
#include "data/image_resize.h"

namespace dtrain {

class VideoFile {
 public:
  static StatusOr<std::unique_ptr<VideoFile>> Open(const std::string& path, int threads = 1);
  ~VideoFile();
  VideoFile(const VideoFile&) = delete;
  VideoFile& operator=(const VideoFile&) = delete;

  int64_t frame_count() const { return frame_count_; }
  int height() const { return height_; }
  int width() const { return width_; }
  const std::string& path() const { return path_; }
  // The stream's codec, as FFmpeg names it ("h264", "ffv1"), for messages.
  const std::string& codec() const { return codec_; }

  // Makes frame `index` (0 <= index < frame_count()) current.
  Status Seek(int64_t index);
  // The current frame: height() x width() x 3, B, G, R.
  const Image8& frame() const { return frame_; }
  int64_t frame_index() const { return current_; }

 private:
  struct Decoder;  // the FFmpeg state of one pass over the file

  VideoFile(std::string path, int threads);
  // Counts the stream's packets (frame_count_) in a pass of its own.
  Status CountFrames();
  // Opens a fresh pass at frame 0 (decoder_).
  Status Restart();
  // Decodes the next frame into the decoder's frame; converts it when `convert`.
  Status DecodeNext(bool convert);
  // "video 'path'", for messages.
  std::string Where() const;

  std::string path_;
  int threads_ = 1;
  std::string codec_;
  int64_t frame_count_ = 0;
  int height_ = 0, width_ = 0;  // frame 0's
  std::unique_ptr<Decoder> decoder_;
  int64_t next_ = 0;      // the index of the frame the decoder gives next
  int64_t current_ = -1;  // the frame in frame_, -1 before the first
  Image8 frame_;
};

}  // namespace dtrain
