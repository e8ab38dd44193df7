// Enum values a binary protobuf file holds that its schema has no name for. protobuf (proto2)
// keeps such a value as an unknown field and the enum field reads as unset (its default), so a
// V1 layer of type 999 would upgrade to a layer with no type, and a pooling method of 7 to MAX:
// a silently different meaning. Found here so that the upgrade path (net/upgrade_net.h) refuses
// them naming the field and the value. Text files never get this far: the text parser refuses an
// unknown enum value itself. Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <string>

namespace google::protobuf {
class Message;
}

namespace dtrain {

struct UnnamedEnumValue {
  std::string field;      // path from the message: "type", "pooling_param.pool", "param[1].x"
  std::string enum_type;  // "LayerType"
  int64_t value = 0;      // as written (negative values too)
};

// The first such value in `message` or any message inside it (fields in number order, the
// message's own unknown fields first); false when there is none.
bool FindUnnamedEnumValue(const google::protobuf::Message& message, UnnamedEnumValue* found);

}  // namespace dtrain
