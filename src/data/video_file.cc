#include "data/video_file.h"

#include <cstdarg>
#include <filesystem>
#include <mutex>
#include <vector>

#include "core/tensor.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

namespace dtrain {

struct VideoFile::Decoder {
  AVFormatContext* format = nullptr;
  AVCodecContext* codec = nullptr;
  AVPacket* packet = nullptr;
  AVFrame* frame = nullptr;
  SwsContext* scaler = nullptr;
  int stream = -1;
  bool flushed = false;      // the end of the file reached and the decoder told so
  int64_t packets_sent = 0;  // packets of the stream given to the decoder

  ~Decoder() {
    sws_freeContext(scaler);
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&codec);
    avformat_close_input(&format);
  }
};

namespace {

// FFmpeg's last error message on this thread ("moov atom not found"), which says more than its
// error code; FFmpeg's log is otherwise silent, as OpenCV keeps it.
thread_local std::string t_ffmpeg_said;

void KeepFfmpegErrors(void* context, int level, const char* format, va_list args) {
  if (level > AV_LOG_ERROR) return;
  char line[512];
  int print_prefix = 0;  // no "[ffv1 @ 0x...]": the address means nothing in a message
  av_log_format_line2(context, level, format, args, line, sizeof(line), &print_prefix);
  std::string said = line;
  while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
  if (!said.empty()) t_ffmpeg_said = said;
}

void InstallFfmpegLog() {
  static std::once_flag once;
  std::call_once(once, [] { av_log_set_callback(KeepFfmpegErrors); });
}

// "Invalid data found when processing input; FFmpeg: moov atom not found".
std::string FfmpegError(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, text, sizeof(text));
  std::string error = text;
  if (!t_ffmpeg_said.empty()) error += "; FFmpeg: " + t_ffmpeg_said;
  t_ffmpeg_said.clear();
  return error;
}

// "audio, subtitle": the kinds of the streams a file holds, for the error that it has no video.
std::string StreamKinds(const AVFormatContext& format) {
  std::string kinds;
  for (unsigned i = 0; i < format.nb_streams; ++i) {
    const char* kind = av_get_media_type_string(format.streams[i]->codecpar->codec_type);
    kinds += (kinds.empty() ? "" : ", ") + std::string(kind ? kind : "unknown");
  }
  return kinds.empty() ? "none" : kinds;
}

// Refuses frames of `width` x `height` that one transformed frame could not hold in this
// machine's memory, or that FFmpeg would refuse to decode; nothing when the size is not known yet.
Status CheckFrameSize(int width, int height, const std::string& where) {
  if (width <= 0 || height <= 0) return Status::Ok();
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  const Status fits = CheckTensorShape({3, height, width});
  if (!fits.ok()) {
    return InvalidArgument(
        where + ": its frames are " + size +
        " (width x height); one frame as 3 x height x width floats: " + fits.message());
  }
  if (av_image_check_size(static_cast<unsigned>(width), static_cast<unsigned>(height), 0, nullptr) <
      0) {
    t_ffmpeg_said.clear();  // its "Picture size ... is invalid" says less than this
    return InvalidArgument(where + ": its frames are " + size +
                           " (width x height), larger than FFmpeg decodes");
  }
  return Status::Ok();
}

// Opens `path`'s container into *format and finds its best video stream (*stream) and that
// stream's decoder.
Status OpenContainer(const std::string& path, const std::string& where, AVFormatContext** format,
                     int* stream, const AVCodec** decoder) {
  int rc = avformat_open_input(format, path.c_str(), nullptr, nullptr);
  if (rc == AVERROR_EOF) {
    return DataLoss(where + " ends before its first frame (" + FfmpegError(rc) + ")");
  }
  if (rc < 0) {
    return DataLoss(where + ": FFmpeg cannot read it as a video (" + FfmpegError(rc) + ")");
  }
  // The header's frame size, checked before FFmpeg probes the streams by decoding some packets.
  for (unsigned i = 0; i < (*format)->nb_streams; ++i) {
    const AVCodecParameters* par = (*format)->streams[i]->codecpar;
    if (par->codec_type != AVMEDIA_TYPE_VIDEO) continue;
    DT_RETURN_IF_ERROR(CheckFrameSize(par->width, par->height, where));
  }
  rc = avformat_find_stream_info(*format, nullptr);
  if (rc < 0) return DataLoss(where + ": reading its streams: " + FfmpegError(rc));
  rc = av_find_best_stream(*format, AVMEDIA_TYPE_VIDEO, -1, -1, decoder, 0);
  if (rc == AVERROR_STREAM_NOT_FOUND) {
    return DataLoss(where + " has no video stream (its streams: " + StreamKinds(**format) + ")");
  }
  if (rc == AVERROR_DECODER_NOT_FOUND) {
    int video = 0;
    while ((*format)->streams[video]->codecpar->codec_type != AVMEDIA_TYPE_VIDEO) ++video;
    return Unsupported(where + ": this FFmpeg has no decoder for its video codec " +
                       avcodec_get_name((*format)->streams[video]->codecpar->codec_id));
  }
  if (rc < 0) return DataLoss(where + ": finding its video stream: " + FfmpegError(rc));
  *stream = rc;
  const AVCodecParameters* par = (*format)->streams[rc]->codecpar;
  return CheckFrameSize(par->width, par->height, where);
}

}  // namespace

VideoFile::VideoFile(std::string path, int threads) : path_(std::move(path)), threads_(threads) {}

VideoFile::~VideoFile() = default;

std::string VideoFile::Where() const { return "video '" + path_ + "'"; }

StatusOr<std::unique_ptr<VideoFile>> VideoFile::Open(const std::string& path, int threads) {
  InstallFfmpegLog();
  t_ffmpeg_said.clear();
  std::unique_ptr<VideoFile> video(new VideoFile(path, threads < 1 ? 1 : threads));
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound(video->Where() + " does not exist");
  if (std::filesystem::is_directory(path, ec)) {
    return InvalidArgument(video->Where() + " is a directory, not a video file");
  }
  DT_RETURN_IF_ERROR(video->CountFrames());
  DT_RETURN_IF_ERROR(video->Restart());
  DT_RETURN_IF_ERROR(video->DecodeNext(/*convert=*/true));
  video->current_ = video->next_++;
  video->height_ = video->frame_.height;
  video->width_ = video->frame_.width;
  return video;
}

Status VideoFile::CountFrames() {
  Decoder pass;
  const AVCodec* decoder = nullptr;
  DT_RETURN_IF_ERROR(OpenContainer(path_, Where(), &pass.format, &pass.stream, &decoder));
  codec_ = avcodec_get_name(pass.format->streams[pass.stream]->codecpar->codec_id);
  pass.packet = av_packet_alloc();
  if (!pass.packet) return IoError(Where() + ": out of memory for a packet");
  frame_count_ = 0;
  for (;;) {
    const int rc = av_read_frame(pass.format, pass.packet);
    if (rc == AVERROR_EOF) break;
    if (rc < 0) {
      return DataLoss(Where() + ": reading its packets (after " + std::to_string(frame_count_) +
                      " of its video stream): " + FfmpegError(rc));
    }
    if (pass.packet->stream_index == pass.stream && pass.packet->size > 0) ++frame_count_;
    av_packet_unref(pass.packet);
  }
  if (frame_count_ == 0) {
    return DataLoss(Where() + " has no frames (its video stream, codec " + codec_ +
                    ", holds no packets)");
  }
  return Status::Ok();
}

Status VideoFile::Restart() {
  decoder_.reset();
  auto d = std::make_unique<Decoder>();
  const AVCodec* decoder = nullptr;
  DT_RETURN_IF_ERROR(OpenContainer(path_, Where(), &d->format, &d->stream, &decoder));
  d->codec = avcodec_alloc_context3(decoder);
  d->packet = av_packet_alloc();
  d->frame = av_frame_alloc();
  if (!d->codec || !d->packet || !d->frame) return IoError(Where() + ": out of memory");
  int rc = avcodec_parameters_to_context(d->codec, d->format->streams[d->stream]->codecpar);
  if (rc < 0) return DataLoss(Where() + ": its codec parameters: " + FfmpegError(rc));
  d->codec->thread_count = threads_;
  rc = avcodec_open2(d->codec, decoder, nullptr);
  if (rc < 0) {
    return DataLoss(Where() + ": opening its " + codec_ + " decoder: " + FfmpegError(rc));
  }
  decoder_ = std::move(d);
  next_ = 0;
  current_ = -1;
  return Status::Ok();
}

Status VideoFile::DecodeNext(bool convert) {
  Decoder& d = *decoder_;
  for (;;) {
    int rc = avcodec_receive_frame(d.codec, d.frame);
    if (rc == 0) break;
    if (rc == AVERROR_EOF || (rc == AVERROR(EAGAIN) && d.flushed)) {
      return DataLoss(Where() + ": the decoder gave " + std::to_string(next_) +
                      " frames, but its video stream has " + std::to_string(frame_count_) +
                      " packets (dtrain counts a frame per packet; a damaged video, or one cut "
                      "between key frames?); re-encode it");
    }
    if (rc != AVERROR(EAGAIN)) {
      return DataLoss(Where() + ": decoding frame " + std::to_string(next_) + ": " +
                      FfmpegError(rc));
    }
    // The decoder wants input: the stream's next packet, or the end of the file.
    for (;;) {
      rc = av_read_frame(d.format, d.packet);
      if (rc < 0 || (d.packet->stream_index == d.stream && d.packet->size > 0)) break;
      av_packet_unref(d.packet);
    }
    if (rc == AVERROR_EOF) {
      d.flushed = true;
      rc = avcodec_send_packet(d.codec, nullptr);
      if (rc < 0 && rc != AVERROR_EOF) {
        return DataLoss(Where() + ": ending its decoding: " + FfmpegError(rc));
      }
      continue;
    }
    if (rc < 0) {
      return DataLoss(Where() + ": reading its packet " + std::to_string(d.packets_sent + 1) +
                      ": " + FfmpegError(rc));
    }
    rc = avcodec_send_packet(d.codec, d.packet);
    av_packet_unref(d.packet);
    ++d.packets_sent;
    if (rc < 0) {
      return DataLoss(Where() + ": its packet " + std::to_string(d.packets_sent) + " (of " +
                      std::to_string(frame_count_) + ") does not decode: " + FfmpegError(rc));
    }
  }
  const AVFrame& frame = *d.frame;
  if (height_ > 0 && (frame.width != width_ || frame.height != height_)) {
    return DataLoss(Where() + ": frame " + std::to_string(next_) + " is " +
                    std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                    " (width x height), but frame 0 is " + std::to_string(width_) + "x" +
                    std::to_string(height_) + "; every frame must have the first one's size");
  }
  if (!convert) return Status::Ok();
  const AVPixelFormat format = static_cast<AVPixelFormat>(frame.format);
  d.scaler =
      sws_getCachedContext(d.scaler, frame.width, frame.height, format, frame.width, frame.height,
                           AV_PIX_FMT_BGR24, SWS_BICUBIC, nullptr, nullptr, nullptr);
  if (!d.scaler) {
    const char* name = av_get_pix_fmt_name(format);
    return Unsupported(Where() + ": frame " + std::to_string(next_) +
                       ": cannot convert its pixel " + "format " + (name ? name : "(none)") +
                       " to BGR");
  }
  frame_.channels = 3;
  frame_.height = frame.height;
  frame_.width = frame.width;
  frame_.pixels.resize(static_cast<size_t>(frame.height) * frame.width * 3);
  uint8_t* planes[4] = {frame_.pixels.data(), nullptr, nullptr, nullptr};
  const int strides[4] = {frame.width * 3, 0, 0, 0};
  sws_scale(d.scaler, frame.data, frame.linesize, 0, frame.height, planes, strides);
  return Status::Ok();
}

Status VideoFile::Seek(int64_t index) {
  DT_CHECK(index >= 0 && index < frame_count_);
  t_ffmpeg_said.clear();
  if (index == current_) return Status::Ok();
  if (!decoder_ || index < next_) DT_RETURN_IF_ERROR(Restart());
  Status status;
  while (status.ok() && next_ < index) {
    status = DecodeNext(/*convert=*/false);
    if (status.ok()) ++next_;
  }
  if (status.ok()) status = DecodeNext(/*convert=*/true);
  if (!status.ok()) {
    decoder_.reset();  // the next Seek starts from a fresh pass
    current_ = -1;
    return status;
  }
  current_ = next_++;
  return Status::Ok();
}

}  // namespace dtrain
