// Image list files, Caffe's format for ImageData layers and convert_imageset: one image per line,
// "relative/path.jpg label". The label is the integer after the last space, so paths may hold
// spaces. Blank lines (and a trailing "\r" from Windows line ends) are ignored; anything else that
// is not "path label" is an error naming the file and line.
// Free functions over values; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/status.h"

namespace dtrain {

struct ImageListEntry {
  std::string path;  // as written in the list (relative to a root folder)
  int label = 0;
  int line = 0;  // 1-based line number in the list file, for messages
};

// Reads the list file `path`. Missing, unreadable or empty files and bad lines are errors naming
// `path` (and "path:line" for a bad line).
StatusOr<std::vector<ImageListEntry>> ReadImageList(const std::string& path);

// "path label" as a list line (without the newline).
std::string ImageListLine(const ImageListEntry& entry);

// Shuffles `items` in place: a Fisher-Yates shuffle drawing from `rng`, the same on every
// platform (std::shuffle's draws are implementation-defined).
template <typename T>
void ShuffleWith(Rng& rng, std::vector<T>* items) {
  for (size_t i = items->size(); i > 1; --i) {
    std::swap((*items)[i - 1], (*items)[rng.UniformInt(static_cast<uint32_t>(i))]);
  }
}

}  // namespace dtrain
