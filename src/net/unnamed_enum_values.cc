#include "net/unnamed_enum_values.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/unknown_field_set.h>

#include <vector>

namespace dtrain {
namespace {

namespace pb = google::protobuf;

bool Find(const pb::Message& message, const std::string& prefix, UnnamedEnumValue* found) {
  const pb::Reflection* reflection = message.GetReflection();
  const pb::Descriptor* descriptor = message.GetDescriptor();
  const pb::UnknownFieldSet& unknown = reflection->GetUnknownFields(message);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const pb::UnknownField& field = unknown.field(i);
    const pb::FieldDescriptor* known = descriptor->FindFieldByNumber(field.number());
    if (known && known->type() == pb::FieldDescriptor::TYPE_ENUM &&
        field.type() == pb::UnknownField::TYPE_VARINT) {
      found->field = prefix + known->name();
      found->enum_type = known->enum_type()->name();
      found->value = static_cast<int64_t>(field.varint());
      return true;
    }
  }
  std::vector<const pb::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const pb::FieldDescriptor* field : fields) {
    if (field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (!field->is_repeated()) {
      if (Find(reflection->GetMessage(message, field), prefix + field->name() + ".", found)) {
        return true;
      }
      continue;
    }
    for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
      const std::string at = prefix + field->name() + "[" + std::to_string(j) + "].";
      if (Find(reflection->GetRepeatedMessage(message, field, j), at, found)) return true;
    }
  }
  return false;
}

}  // namespace

bool FindUnnamedEnumValue(const google::protobuf::Message& message, UnnamedEnumValue* found) {
  return Find(message, "", found);
}

}  // namespace dtrain
