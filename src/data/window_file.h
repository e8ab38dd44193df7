// Window files, the input of Caffe's WindowData layer (R-CNN fine-tuning): for each image,
//
//   # image_index
//   image_path
//   channels
//   height
//   width
//   num_windows
//   class_index overlap x1 y1 x2 y2      (num_windows lines)
//
// Tokens are whitespace-separated, as Caffe reads them with operator>>, so line breaks do not
// matter; errors name the file and the line of the offending token. dtrain checks what Caffe
// leaves to a crash or to silent garbage: image indices run 0, 1, 2, ... (Caffe uses them to
// index its image table), every image has 1 or 3 channels and the same count, sizes and counts
// are positive and bounded, coordinates satisfy 0 <= x1 <= x2 and 0 <= y1 <= y2, overlaps are
// finite, and a foreground window has a class index > 0 (class 0 is the background).
//
// Windows with overlap >= fg_threshold are foreground; those with overlap < bg_threshold are
// background, their class and overlap set to 0; the others are not used (Caffe's rules).
// A free function over values; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

struct WindowImage {
  std::string path;  // as written, without the root folder
  int channels = 0;  // from the header; the decoded image decides the height and width used
  int height = 0;
  int width = 0;
};

struct Window {
  int image = 0;  // index into WindowFile::images
  int label = 0;
  float overlap = 0;
  int x1 = 0, y1 = 0, x2 = 0, y2 = 0;  // inclusive pixel bounds
  int line = 0;                        // of its line in the file, for messages
};

struct WindowFile {
  std::vector<WindowImage> images;
  std::vector<Window> foreground;
  std::vector<Window> background;
};

// Reads the window file at `path` and splits its windows by the thresholds.
StatusOr<WindowFile> ReadWindowFile(const std::string& path, float fg_threshold,
                                    float bg_threshold);

}  // namespace dtrain
