// Small video files for the VideoData tests, written with FFmpeg's own encoders and muxers
// (libavformat, libavcodec), so that no ffmpeg command is needed.
//
// Frames are 8-bit BGR, HWC (as data/video_file.h reads them), all one size. Each writer returns
// an error Status naming the FFmpeg call that failed; the file is then incomplete. Thread-safe for
// distinct paths.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "data/image_resize.h"

namespace dtrain::testing {

enum class TestVideoCodec {
  kFfv1,   // FFV1 (lossless, bgr0) in Matroska: decoded pixels equal the frames exactly
  kMpeg4,  // MPEG-4 part 2 (lossy, yuv420p) with 2 B-frames between references, in AVI: the
           // decoder reorders the frames; pixels are near the frames' (solid colours within a few
           // levels)
  kMpeg4Elementary,  // MPEG-4 part 2 as a bare elementary stream (.m4v), no B-frames: two such
                     // files concatenated are one stream whose frame size changes between them
};

Status WriteTestVideo(const std::string& path, const std::vector<Image8>& frames,
                      TestVideoCodec codec);

// A file whose FFV1 video stream says its frames are width x height, holding `packets` packets of
// 16 junk bytes (none decodes), in FFmpeg's `muxer`: "avi" (which holds 0 packets, a video with no
// frames) or "matroska" (which holds any frame size; AVI refuses sizes beyond FFmpeg's limit).
Status WriteVideoHeader(const std::string& path, int width, int height, int packets,
                        const char* muxer);

// A Matroska file with one PCM audio stream and no video stream.
Status WriteAudioOnly(const std::string& path);

// `count` frames of height x width, frame i filled by GradientBgr's pattern with seed 10 i (its
// B at (y, x) is 20 + 9x + 10i, G 30 + 7y + 10i, R 200 - 3x - 4y): frames told apart by any pixel.
std::vector<Image8> GradientFrames(int count, int height, int width);

// `count` frames of one colour each: frame i is B = 20 i + 10, G = 200 - 15 i, R = 60 + 9 i.
std::vector<Image8> SolidFrames(int count, int height, int width);

}  // namespace dtrain::testing
