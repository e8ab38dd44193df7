// The ground truth that YOLO v2's layers (RegionLoss, EvalDetection) read, as Intel Caffe's
// read it: the label top of AnnotatedData, (1, 1, G, 8), rows [item, group_label, instance_id,
// xmin, ymin, xmax, ymax, difficult] in normalised coordinates. A row of item -1 is padding (the
// single row of a batch without boxes) and is skipped. Each other row becomes a RegionTruth of
// its item: class group_label - 1 truncated towards zero (group label 0 is the background), box
// centre ((xmin + xmax) / 2, (ymin + ymax) / 2) and size (xmax - xmin, ymax - ymin), computed in
// float as the ports do; instance_id and difficult are not read.
//
// BoxData's labels ((N, 150): 30 rows [class, x, y, w, h] per image) are another layout, which
// Intel's layers would misread; a label bottom of any shape other than (1, 1, G, 8) is refused
// naming both layouts. Plain function; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "detection/region_box.h"

namespace dtrain {

struct RegionTruth {
  int label = 0;  // group_label - 1, in [0, num_class)
  detection::CenterBox box;
  int row = 0;  // the row of the label bottom, for messages
};

struct RegionLabelRules {
  int items = 0;                      // the batch: rows name items 0 .. items - 1
  int num_class = 0;                  // classes 0 .. num_class - 1
  bool ignore_item_past_end = false;  // a row of item `items` is skipped (EvalDetection)
};

// Reads the rows of `labels` into (*truths)[item] (resized to rules.items and cleared). Errors
// (the caller adds the layer's name): a shape other than (1, 1, G, 8); a row whose item is
// neither -1 nor in [0, items) (nor `items` where ignored); a value that is not finite; a
// class outside [0, num_class).
Status ReadRegionTruths(const Tensor& labels, const RegionLabelRules& rules,
                        std::vector<std::vector<RegionTruth>>* truths);

}  // namespace dtrain
