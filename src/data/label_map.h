// Label maps: the classes of a detection data set (the SSD fork's labelmap_voc.prototxt, a
// LabelMap of items `name`, `label`, `display_name`), read and turned into the lookups the
// converter and the detection layers need. Free functions over values; thread-safe.
#pragma once

#include <map>
#include <string>

#include "core/status.h"
#include "proto/annotation.pb.h"

namespace dtrain {

// Reads the LabelMap prototxt at `path`. An item without a name or a label is an error naming
// `path` and the item (the fork requires both).
StatusOr<LabelMap> ReadLabelMap(const std::string& path);

// Each name's label. With `strict` (convert annoset --check_label) a name given twice is an error;
// without it the last item of a name wins, as in the fork. `path` names the map in messages.
StatusOr<std::map<std::string, int>> NameToLabel(const LabelMap& map, bool strict,
                                                 const std::string& path);

// Each label's display name (the name when it has none). A label given twice is an error.
StatusOr<std::map<int, std::string>> LabelToDisplayName(const LabelMap& map,
                                                        const std::string& path);

}  // namespace dtrain
