#include "data/label_map.h"

#include "core/proto_io.h"

namespace dtrain {

StatusOr<LabelMap> ReadLabelMap(const std::string& path) {
  LabelMap map;
  DT_RETURN_IF_ERROR(ReadTextProto(path, &map).WithContext("label map"));
  for (int i = 0; i < map.item_size(); ++i) {
    const LabelMapItem& item = map.item(i);
    if (!item.has_name() || !item.has_label()) {
      return InvalidArgument("label map '" + path + "': item " + std::to_string(i + 1) +
                             (item.has_name() ? " ('" + item.name() + "')" : "") + " has no " +
                             (item.has_name() ? "label" : "name") + "; every item needs both");
    }
  }
  for (const LabelMapItem& item : map.item()) {
    if (item.label() < 0) {
      return InvalidArgument("label map '" + path + "': '" + item.name() + "' has label " +
                             std::to_string(item.label()) + "; labels are class ids >= 0");
    }
  }
  if (map.item_size() == 0) return InvalidArgument("label map '" + path + "' has no item");
  return map;
}

StatusOr<std::map<std::string, int>> NameToLabel(const LabelMap& map, bool strict,
                                                 const std::string& path) {
  std::map<std::string, int> labels;
  for (const LabelMapItem& item : map.item()) {
    if (strict && labels.count(item.name())) {
      return InvalidArgument("label map '" + path + "' names '" + item.name() +
                             "' more than once (labels " + std::to_string(labels[item.name()]) +
                             " and " + std::to_string(item.label()) + ")");
    }
    labels[item.name()] = item.label();
  }
  return labels;
}

StatusOr<std::map<int, std::string>> LabelToDisplayName(const LabelMap& map,
                                                        const std::string& path) {
  std::map<int, std::string> names;
  for (const LabelMapItem& item : map.item()) {
    const std::string& shown = item.has_display_name() ? item.display_name() : item.name();
    if (!names.emplace(item.label(), shown).second) {
      return InvalidArgument("label map '" + path + "' gives label " +
                             std::to_string(item.label()) + " twice ('" + names[item.label()] +
                             "' and '" + shown + "')");
    }
  }
  return names;
}

}  // namespace dtrain
