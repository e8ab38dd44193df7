// make_image_set: writes COUNT synthetic photo-like JPEGs (synthetic_photo.h; quality 90, 4:2:0)
// of HEIGHT x WIDTH into OUT_DIR, named 00000.jpg, 00001.jpg, ..., and OUT_DIR/list.txt, one
// "NAME LABEL" line per image (labels 0 .. CLASSES-1 in turn): an image list for ImageData and
// for `dtrain convert imageset`. bench/data_path.sh uses it.
//
//   dtrain_make_image_set OUT_DIR COUNT HEIGHT WIDTH [CLASSES=10]
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "core/rng.h"
#include "data/image_encode.h"
#include "synthetic_photo.h"

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "make_image_set: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5 || argc > 6) {
    return Fail("usage: dtrain_make_image_set OUT_DIR COUNT HEIGHT WIDTH [CLASSES=10]");
  }
  const std::string dir = argv[1];
  const int count = std::atoi(argv[2]), height = std::atoi(argv[3]), width = std::atoi(argv[4]);
  const int classes = argc > 5 ? std::atoi(argv[5]) : 10;
  if (count <= 0 || height <= 0 || width <= 0 || classes <= 0) {
    return Fail("COUNT, HEIGHT, WIDTH and CLASSES must be positive integers");
  }
  std::ofstream list(dir + "/list.txt");
  if (!list) return Fail("cannot write " + dir + "/list.txt (does the directory exist?)");
  dtrain::Rng rng(42);
  for (int i = 0; i < count; ++i) {
    const std::vector<uint8_t> bgr = dtrain::bench::SyntheticPhoto(height, width, rng);
    auto jpeg = dtrain::EncodeJpeg(dtrain::HwcImage{bgr.data(), 3, height, width}, 90);
    if (!jpeg.ok()) return Fail(jpeg.status().message());
    char name[16];
    std::snprintf(name, sizeof name, "%05d.jpg", i);
    std::ofstream file(dir + "/" + name, std::ios::binary);
    file.write(jpeg->data(), static_cast<std::streamsize>(jpeg->size()));
    if (!file) return Fail("cannot write " + dir + "/" + name);
    list << name << ' ' << i % classes << '\n';
  }
  list.close();
  if (!list) return Fail("cannot write " + dir + "/list.txt");
  return 0;
}
