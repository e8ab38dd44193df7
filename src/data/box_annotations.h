// The annotation files of detection data sets, read as the SSD fork's convert_annoset reads them
// (its util/io.cpp), into an AnnotatedDatum's groups of normalised boxes:
//  - "xml": PASCAL VOC (and ILSVRC) files: <annotation><size><width>/<height>, and <object>s
//    with <name> (looked up in the label map), <difficult> ("1" is difficult) and
//    <bndbox><xmin>/<ymin>/<xmax>/<ymax> in pixels;
//  - "json": the fork's per-image COCO files: {"image": {"width", "height"}, "annotation":
//    [{"category_id" (looked up in the label map as text), "iscrowd" (kept as difficult),
//    "bbox": [x, y, width, height]}]};
//  - "txt": one box per line, "label xmin ymin xmax ymax" in pixels.
// Boxes are divided by the size the file states (the image's when it states none, and always for
// txt); a size that differs from the image's is a warning, as in the fork. Objects of one label
// form one group, numbered 0, 1, ... in file order (instance_id).
//
// Where the fork warns and stores garbage or crashes, these are errors naming the file and line:
// a file that does not parse, an <object> without a name or box, a name not in the label map, a
// coordinate that is not a number (the fork reads "12.5" as 0), a non-finite one, xmin > xmax or
// ymin > ymax, a box wholly outside the image, a negative label, a size of zero. A box only partly
// outside the image is kept, with a warning, as the fork keeps it. Free functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "proto/annotation.pb.h"

namespace dtrain {

// One object of an annotation file, in pixels.
struct BoxObject {
  int label = 0;
  double xmin = 0, ymin = 0, xmax = 0, ymax = 0;
  bool difficult = false;
  std::string where;  // "file:line" for messages
};

struct ImageBoxes {
  int width = 0;  // as the file states them; 0 where it states none
  int height = 0;
  std::vector<BoxObject> objects;
};

// Reads the annotation file at `path` in `format` ("xml", "json" or "txt"); names are looked up
// in `name_to_label` (data/label_map.h), which txt files do not use.
StatusOr<ImageBoxes> ReadBoxAnnotations(const std::string& path, const std::string& format,
                                        const std::map<std::string, int>& name_to_label);

// Adds `boxes` to `datum` as normalised, grouped annotations, for an image of image_height x
// image_width pixels (its size before any resize). Sets datum->type() to BBOX.
Status AddBoxes(const ImageBoxes& boxes, int image_height, int image_width, const std::string& path,
                AnnotatedDatum* datum);

}  // namespace dtrain
