// The SSD fork's detection result files (DetectionOutput's save_output_param) and the name-size
// file both DetectionOutput and DetectionEvaluate read.
//
// A name-size file lists the test images in the order the test net reads them, one per line:
// "name height width" (positive sizes; blank lines skipped).
//
// Result files, written into `directory` after every num_test_image images, as the fork writes
// them: each detection's box in pixels of its image, its coordinates and size rounded to 0.01,
//   VOC     one file per class but the background, PREFIX + class name + ".txt", lines
//           "image score xmin ymin xmax ymax" with xmin = int(x), xmax = int(x) + int(width)
//           (the fork truncates the rounded values);
//   COCO    PREFIX + ".json": a JSON array of {"image_id", "category_id" (the class name), "bbox":
//           [x, y, width, height], "score"};
//   ILSVRC  PREFIX + ".txt", lines "image label score xmin ymin xmax ymax" (label as a number).
// Class names come from the label map (its `name`). Each file is written whole to a temporary
// name and renamed over the last one, so a reader never sees half a file. Free functions; the
// writer touches only the files it names.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain::detection {

struct ImageNameSize {
  std::string name;
  int height = 0, width = 0;
};

// `field` names the parameter in messages ("detection_output_param.save_output_param.
// name_size_file"). Errors name the file and line.
StatusOr<std::vector<ImageNameSize>> ReadNameSizeFile(const std::string& path,
                                                      const std::string& field);

enum class ResultFormat { kVoc, kCoco, kIlsvrc };

// "VOC", "COCO" or "ILSVRC"; anything else is an error naming `field` (the fork writes nothing
// for another format, silently).
StatusOr<ResultFormat> ParseResultFormat(const std::string& text, const std::string& field);

// One detection, in pixels of its image.
struct SavedDetection {
  std::string image;
  int label = 0;
  float score = 0;
  float xmin = 0, ymin = 0, xmax = 0, ymax = 0;
};

struct ResultFiles {
  std::string directory;
  std::string prefix;
  ResultFormat format = ResultFormat::kVoc;
  std::map<int, std::string> class_names;  // label -> name, every class but the background
};

// Writes `detections` as `files` says. Errors name the file that could not be written.
Status WriteResultFiles(const ResultFiles& files, const std::vector<SavedDetection>& detections);

}  // namespace dtrain::detection
