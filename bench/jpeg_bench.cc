// jpeg_bench: images per second on ONE thread of (a) libjpeg-turbo alone, decoding JPEGs to BGR
// with tjDecompress2, and (b) dtrain's ImageData path per image: decode (ImageDecoder) plus the
// random crop, mirror and mean subtraction into float CHW (DataTransformer, straight from the
// decoder's HWC buffer), with a per-image random stream as the layer draws it. The ratio b / a
// says how much of the decode speed the data path keeps (bench/README.md).
//
// The images are made here: ~256 x 256 (four sizes), synthetic_photo.h's gradients plus noise,
// JPEG quality 90 with 4:2:0 chroma subsampling (what ImageNet-style sets hold). Usage:
// dtrain_jpeg_bench [images=200] [passes=10] [crop=227]
#include <turbojpeg.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/rng.h"
#include "data/image_decode.h"
#include "data/transformer.h"
#include "synthetic_photo.h"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> MakeJpegs(int count) {
  const int sizes[4][2] = {{256, 256}, {256, 340}, {300, 256}, {240, 320}};
  dtrain::Rng rng(42);
  tjhandle handle = tjInitCompress();
  std::vector<std::string> jpegs;
  for (int i = 0; i < count; ++i) {
    const int height = sizes[i % 4][0], width = sizes[i % 4][1];
    const std::vector<uint8_t> bgr = dtrain::bench::SyntheticPhoto(height, width, rng);
    unsigned char* jpeg = nullptr;
    unsigned long size = 0;
    if (tjCompress2(handle, bgr.data(), width, 0, height, TJPF_BGR, &jpeg, &size, TJSAMP_420, 90,
                    0) != 0) {
      std::fprintf(stderr, "tjCompress2: %s\n", tjGetErrorStr2(handle));
      std::exit(1);
    }
    jpegs.emplace_back(reinterpret_cast<const char*>(jpeg), size);
    tjFree(jpeg);
  }
  tjDestroy(handle);
  return jpegs;
}

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 200;
  const int passes = argc > 2 ? std::atoi(argv[2]) : 30;
  const int crop = argc > 3 ? std::atoi(argv[3]) : 227;
  const std::vector<std::string> jpegs = MakeJpegs(count);
  size_t bytes = 0;
  for (const std::string& jpeg : jpegs) bytes += jpeg.size();
  std::printf("%d JPEGs, mean %.1f KB, quality 90, 4:2:0; %d passes each; crop %d, mirror, mean\n",
              count, bytes / 1024.0 / count, passes, crop);

  // (a) libjpeg-turbo alone: one pass over the images, in seconds.
  tjhandle handle = tjInitDecompress();
  std::vector<uint8_t> bgr(400 * 400 * 3);
  auto decode_only = [&] {
    const auto start = Clock::now();
    for (const std::string& jpeg : jpegs) {
      int width, height, subsampling, colorspace;
      const auto* data = reinterpret_cast<const unsigned char*>(jpeg.data());
      tjDecompressHeader3(handle, data, jpeg.size(), &width, &height, &subsampling, &colorspace);
      if (tjDecompress2(handle, data, jpeg.size(), bgr.data(), width, 0, height, TJPF_BGR, 0)) {
        std::fprintf(stderr, "tjDecompress2: %s\n", tjGetErrorStr2(handle));
        std::exit(1);
      }
    }
    return Seconds(start);
  };

  // (b) dtrain's per-image ImageData work: one pass, in seconds.
  dtrain::TransformationParameter param;
  param.set_crop_size(crop);
  param.set_mirror(true);
  param.add_mean_value(104.f);
  param.add_mean_value(117.f);
  param.add_mean_value(123.f);
  dtrain::DataTransformer transformer(param, dtrain::TRAIN, 1);
  if (!transformer.Init().ok()) return 1;
  dtrain::ImageDecoder decoder;
  std::vector<float> out(3 * crop * crop);
  int64_t position = 0;
  auto dtrain_path = [&] {
    const auto start = Clock::now();
    for (const std::string& jpeg : jpegs) {
      auto image = decoder.Decode(jpeg, dtrain::ImageColor::kColor);
      dtrain::Rng rng(dtrain::DeriveSeed(1701, ++position));
      dtrain::Status s =
          image.ok() ? transformer.Transform(dtrain::PixelView{image->pixels, image->channels,
                                                               image->height, image->width, true},
                                             rng, out.data())
                     : image.status();
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        std::exit(1);
      }
    }
    return Seconds(start);
  };

  // The two alternate pass by pass, so that a busy machine slows both alike; each one's median
  // pass time gives its rate, and the median of the per-pair ratios the ratio.
  std::vector<double> decode_times, dtrain_times;
  for (int pass = 0; pass < passes; ++pass) {
    decode_times.push_back(decode_only());
    dtrain_times.push_back(dtrain_path());
  }
  auto median = [](std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
  };
  // Each pass of (b) against the pass of (a) just before it: the ratio is steadier than the rates.
  std::vector<double> ratios;
  for (int pass = 0; pass < passes; ++pass)
    ratios.push_back(decode_times[pass] / dtrain_times[pass]);
  tjDestroy(handle);
  std::printf("libjpeg-turbo decode only (tjDecompress2, BGR): %8.1f images/s\n",
              count / median(decode_times));
  std::printf("dtrain decode + crop + mirror + mean (float):   %8.1f images/s\n",
              count / median(dtrain_times));
  std::printf("ratio (median over pass pairs): %.2f\n", median(ratios));
  return 0;
}
