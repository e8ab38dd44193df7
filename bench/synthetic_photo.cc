#include "synthetic_photo.h"

#include <algorithm>
#include <cstddef>

namespace dtrain::bench {

std::vector<uint8_t> SyntheticPhoto(int height, int width, Rng& rng) {
  std::vector<uint8_t> bgr(static_cast<size_t>(height) * width * 3);
  const int phase = static_cast<int>(rng.UniformInt(256));
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c) {
        const int smooth = (phase + x * (c + 1) + y * (3 - c)) % 256;
        const int noise = static_cast<int>(rng.UniformInt(41)) - 20;
        bgr[(static_cast<size_t>(y) * width + x) * 3 + c] =
            static_cast<uint8_t>(std::clamp(smooth + noise, 0, 255));
      }
    }
  }
  return bgr;
}

}  // namespace dtrain::bench
