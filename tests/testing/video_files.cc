#include "testing/video_files.h"

#include <cstring>
#include <memory>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>
}

namespace dtrain::testing {
namespace {

Status Failed(const char* call, int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, text, sizeof(text));
  return IoError(std::string(call) + ": " + text);
}

// An output file: the container and its streams; closes the file and frees everything.
struct Output {
  AVFormatContext* format = nullptr;
  ~Output() {
    if (format && format->pb) avio_closep(&format->pb);
    avformat_free_context(format);
  }
  Status Open(const std::string& path, const char* muxer) {
    const int rc = avformat_alloc_output_context2(&format, nullptr, muxer, path.c_str());
    if (rc < 0) return Failed("avformat_alloc_output_context2", rc);
    return Status::Ok();
  }
  Status Start(const std::string& path) {
    int rc = avio_open(&format->pb, path.c_str(), AVIO_FLAG_WRITE);
    if (rc < 0) return Failed("avio_open", rc);
    rc = avformat_write_header(format, nullptr);
    return rc < 0 ? Failed("avformat_write_header", rc) : Status::Ok();
  }
  Status Finish() {
    const int rc = av_write_trailer(format);
    return rc < 0 ? Failed("av_write_trailer", rc) : Status::Ok();
  }
};

struct Encoder {
  AVCodecContext* codec = nullptr;
  AVFrame* frame = nullptr;
  AVPacket* packet = nullptr;
  SwsContext* scaler = nullptr;
  ~Encoder() {
    sws_freeContext(scaler);
    av_packet_free(&packet);
    av_frame_free(&frame);
    avcodec_free_context(&codec);
  }
};

// Writes every packet the encoder has ready (all of them after the flush, `frame` null).
Status Drain(Encoder& e, Output& out, AVStream* stream, const AVFrame* frame) {
  int rc = avcodec_send_frame(e.codec, frame);
  if (rc < 0) return Failed("avcodec_send_frame", rc);
  for (;;) {
    rc = avcodec_receive_packet(e.codec, e.packet);
    if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return Status::Ok();
    if (rc < 0) return Failed("avcodec_receive_packet", rc);
    av_packet_rescale_ts(e.packet, e.codec->time_base, stream->time_base);
    e.packet->stream_index = stream->index;
    rc = av_interleaved_write_frame(out.format, e.packet);
    if (rc < 0) return Failed("av_interleaved_write_frame", rc);
  }
}

// Copies a BGR frame into the encoder's frame, in its pixel format.
Status FillFrame(const Image8& image, Encoder& e) {
  const int rc = av_frame_make_writable(e.frame);
  if (rc < 0) return Failed("av_frame_make_writable", rc);
  if (e.codec->pix_fmt == AV_PIX_FMT_0RGB32) {  // B, G, R, 0 on little-endian machines
    for (int y = 0; y < image.height; ++y) {
      uint8_t* row = e.frame->data[0] + static_cast<ptrdiff_t>(y) * e.frame->linesize[0];
      for (int x = 0; x < image.width; ++x) {
        std::memcpy(row + 4 * x, &image.pixels[(static_cast<size_t>(y) * image.width + x) * 3], 3);
        row[4 * x + 3] = 0;
      }
    }
    return Status::Ok();
  }
  e.scaler =
      sws_getCachedContext(e.scaler, image.width, image.height, AV_PIX_FMT_BGR24, image.width,
                           image.height, e.codec->pix_fmt, SWS_BICUBIC, nullptr, nullptr, nullptr);
  if (!e.scaler) return IoError("sws_getCachedContext: no conversion to the encoder's format");
  const uint8_t* planes[4] = {image.pixels.data(), nullptr, nullptr, nullptr};
  const int strides[4] = {image.width * 3, 0, 0, 0};
  sws_scale(e.scaler, planes, strides, 0, image.height, e.frame->data, e.frame->linesize);
  return Status::Ok();
}

}  // namespace

Status WriteTestVideo(const std::string& path, const std::vector<Image8>& frames,
                      TestVideoCodec codec) {
  if (frames.empty()) return InvalidArgument("WriteTestVideo: no frames");
  const bool ffv1 = codec == TestVideoCodec::kFfv1;
  Output out;
  const bool elementary = codec == TestVideoCodec::kMpeg4Elementary;
  DT_RETURN_IF_ERROR(out.Open(path, ffv1 ? "matroska" : elementary ? "m4v" : "avi"));
  const AVCodec* encoder = avcodec_find_encoder(ffv1 ? AV_CODEC_ID_FFV1 : AV_CODEC_ID_MPEG4);
  if (!encoder) return IoError("avcodec_find_encoder: this FFmpeg has no such encoder");
  AVStream* stream = avformat_new_stream(out.format, nullptr);
  Encoder e;
  e.codec = avcodec_alloc_context3(encoder);
  e.frame = av_frame_alloc();
  e.packet = av_packet_alloc();
  if (!stream || !e.codec || !e.frame || !e.packet) return IoError("out of memory");
  e.codec->width = frames[0].width;
  e.codec->height = frames[0].height;
  e.codec->pix_fmt = ffv1 ? AV_PIX_FMT_0RGB32 : AV_PIX_FMT_YUV420P;
  e.codec->time_base = AVRational{1, 25};
  e.codec->framerate = AVRational{25, 1};
  if (!ffv1) {
    e.codec->max_b_frames = elementary ? 0 : 2;
    e.codec->gop_size = 12;
    e.codec->flags |= AV_CODEC_FLAG_QSCALE;
    e.codec->global_quality = FF_QP2LAMBDA * 2;  // fine quantisation: near the input
  }
  if (out.format->oformat->flags & AVFMT_GLOBALHEADER) {
    e.codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  }
  int rc = avcodec_open2(e.codec, encoder, nullptr);
  if (rc < 0) return Failed("avcodec_open2", rc);
  rc = avcodec_parameters_from_context(stream->codecpar, e.codec);
  if (rc < 0) return Failed("avcodec_parameters_from_context", rc);
  stream->time_base = e.codec->time_base;
  e.frame->format = e.codec->pix_fmt;
  e.frame->width = e.codec->width;
  e.frame->height = e.codec->height;
  rc = av_frame_get_buffer(e.frame, 0);
  if (rc < 0) return Failed("av_frame_get_buffer", rc);
  DT_RETURN_IF_ERROR(out.Start(path));
  for (size_t i = 0; i < frames.size(); ++i) {
    DT_RETURN_IF_ERROR(FillFrame(frames[i], e));
    e.frame->pts = static_cast<int64_t>(i);
    DT_RETURN_IF_ERROR(Drain(e, out, stream, e.frame));
  }
  DT_RETURN_IF_ERROR(Drain(e, out, stream, nullptr));
  return out.Finish();
}

Status WriteVideoHeader(const std::string& path, int width, int height, int packets,
                        const char* muxer) {
  Output out;
  DT_RETURN_IF_ERROR(out.Open(path, muxer));
  AVStream* stream = avformat_new_stream(out.format, nullptr);
  if (!stream) return IoError("out of memory");
  stream->codecpar->codec_type = AVMEDIA_TYPE_VIDEO;
  stream->codecpar->codec_id = AV_CODEC_ID_FFV1;
  stream->codecpar->width = width;
  stream->codecpar->height = height;
  stream->time_base = AVRational{1, 25};
  DT_RETURN_IF_ERROR(out.Start(path));
  std::unique_ptr<AVPacket, void (*)(AVPacket*)> packet(av_packet_alloc(),
                                                        [](AVPacket* p) { av_packet_free(&p); });
  for (int i = 0; i < packets; ++i) {
    int rc = av_new_packet(packet.get(), 16);
    if (rc < 0) return Failed("av_new_packet", rc);
    std::memset(packet->data, 0xA5, 16);
    packet->pts = packet->dts = i;
    packet->duration = 1;
    packet->stream_index = stream->index;
    packet->flags |= AV_PKT_FLAG_KEY;
    av_packet_rescale_ts(packet.get(), AVRational{1, 25}, stream->time_base);
    rc = av_write_frame(out.format, packet.get());
    av_packet_unref(packet.get());
    if (rc < 0) return Failed("av_write_frame", rc);
  }
  return out.Finish();
}

Status WriteAudioOnly(const std::string& path) {
  Output out;
  DT_RETURN_IF_ERROR(out.Open(path, "matroska"));
  AVStream* stream = avformat_new_stream(out.format, nullptr);
  if (!stream) return IoError("out of memory");
  AVCodecParameters* par = stream->codecpar;
  par->codec_type = AVMEDIA_TYPE_AUDIO;
  par->codec_id = AV_CODEC_ID_PCM_S16LE;
  par->format = AV_SAMPLE_FMT_S16;
  par->sample_rate = 8000;
  par->ch_layout = AV_CHANNEL_LAYOUT_MONO;
  par->bits_per_coded_sample = 16;
  par->block_align = 2;
  stream->time_base = AVRational{1, 8000};
  DT_RETURN_IF_ERROR(out.Start(path));
  std::unique_ptr<AVPacket, void (*)(AVPacket*)> packet(av_packet_alloc(),
                                                        [](AVPacket* p) { av_packet_free(&p); });
  int rc = av_new_packet(packet.get(), 320);
  if (rc < 0) return Failed("av_new_packet", rc);
  std::memset(packet->data, 0, 320);
  packet->pts = packet->dts = 0;
  packet->duration = 160;
  packet->stream_index = stream->index;
  rc = av_write_frame(out.format, packet.get());
  if (rc < 0) return Failed("av_write_frame", rc);
  return out.Finish();
}

std::vector<Image8> GradientFrames(int count, int height, int width) {
  std::vector<Image8> frames(count);
  for (int i = 0; i < count; ++i) {
    Image8& f = frames[i];
    f.channels = 3;
    f.height = height;
    f.width = width;
    f.pixels.resize(static_cast<size_t>(height) * width * 3);
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        uint8_t* p = &f.pixels[(static_cast<size_t>(y) * width + x) * 3];
        p[0] = static_cast<uint8_t>(20 + 9 * x + 10 * i);
        p[1] = static_cast<uint8_t>(30 + 7 * y + 10 * i);
        p[2] = static_cast<uint8_t>(200 - 3 * x - 4 * y);
      }
    }
  }
  return frames;
}

std::vector<Image8> SolidFrames(int count, int height, int width) {
  std::vector<Image8> frames(count);
  for (int i = 0; i < count; ++i) {
    Image8& f = frames[i];
    f.channels = 3;
    f.height = height;
    f.width = width;
    const uint8_t bgr[3] = {static_cast<uint8_t>(20 * i + 10), static_cast<uint8_t>(200 - 15 * i),
                            static_cast<uint8_t>(60 + 9 * i)};
    for (size_t p = 0; p < static_cast<size_t>(height) * width; ++p) {
      f.pixels.insert(f.pixels.end(), bgr, bgr + 3);
    }
  }
  return frames;
}

}  // namespace dtrain::testing
