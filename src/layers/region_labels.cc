#include "layers/region_labels.h"

#include <cmath>

namespace dtrain {

Status ReadRegionTruths(const Tensor& labels, const RegionLabelRules& rules,
                        std::vector<std::vector<RegionTruth>>* truths) {
  if (labels.num_axes() != 4 || labels.shape(0) != 1 || labels.shape(1) != 1 ||
      labels.shape(3) != 8) {
    return InvalidArgument(
        "the label bottom is " + labels.ShapeString() +
        ", not AnnotatedData's (1, 1, G, 8) rows [item, group_label, instance_id, xmin, ymin, "
        "xmax, ymax, difficult], the layout Intel Caffe's YOLO layers read (BoxData's (N, 150) "
        "rows [class, x, y, w, h] are not read)");
  }
  truths->resize(static_cast<size_t>(rules.items));
  for (auto& item : *truths) item.clear();
  const float* v = labels.data();
  for (int r = 0; r < labels.shape(2); ++r, v += 8) {
    const std::string row = "label row " + std::to_string(r);
    for (int k : {0, 1, 3, 4, 5, 6}) {
      if (!std::isfinite(v[k])) {
        return InvalidArgument(row + " holds a value that is not finite (column " +
                               std::to_string(k) + ")");
      }
    }
    if (v[0] == -1.f) continue;
    if (!(v[0] > -1.f && v[0] < static_cast<float>(rules.items) + 1.f)) {
      return InvalidArgument(row + " names item " + std::to_string(v[0]) +
                             ", outside the batch of " + std::to_string(rules.items));
    }
    const int item = static_cast<int>(v[0]);
    if (item == rules.items) {
      if (rules.ignore_item_past_end) continue;
      return InvalidArgument(row + " names item " + std::to_string(item) +
                             ", outside the batch of " + std::to_string(rules.items));
    }
    const float shifted = v[1] - 1.f;
    if (!(shifted > -1.f && shifted < static_cast<float>(rules.num_class))) {
      return InvalidArgument(row + " has group_label " + std::to_string(v[1]) +
                             ": the classes are group_label - 1 in [0, num_class = " +
                             std::to_string(rules.num_class) + ")");
    }
    RegionTruth t;
    t.label = static_cast<int>(shifted);
    t.box = {(v[3] + v[5]) / 2.f, (v[4] + v[6]) / 2.f, v[5] - v[3], v[6] - v[4]};
    t.row = r;
    (*truths)[static_cast<size_t>(item)].push_back(t);
  }
  return Status::Ok();
}

}  // namespace dtrain
