// Image list files, Caffe's format for ImageData layers and convert_imageset: one image per line,
// "relative/path.jpg label". The label is the integer after the last space, so paths may hold
// spaces. Blank lines (and a trailing "\r" from Windows line ends) are ignored; anything else that
// is not "path label" is an error naming the file and line.
//
// Also the pure planning behind `dtrain split-list`: a seeded shuffle and a balanced split into
// per-worker lists. Free functions over values; thread-safe.
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

// The indices 0..count-1, shuffled with `seed` when `shuffle`, dealt round-robin to `workers`
// lists: list k holds the k-th, (k+workers)-th, ... index, so sizes differ by at most one.
std::vector<std::vector<int64_t>> SplitIndices(int64_t count, int workers, uint64_t seed,
                                               bool shuffle);

// `dtrain split-list`: the entries of the list file `list`, split by SplitIndices into one list
// file per worker, out_paths[k] for worker k. Existing outputs (and duplicate paths) are refused
// before anything is written; each file is written under a temporary name and renamed, and on a
// failure the lists already written are removed.
Status SplitImageList(const std::string& list, const std::vector<std::string>& out_paths,
                      uint64_t seed, bool shuffle);

}  // namespace dtrain
