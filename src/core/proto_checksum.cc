#include "core/proto_checksum.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <memory>

#include "core/check.h"
#include "core/fnv1a.h"

namespace dtrain {
namespace {

const google::protobuf::FieldDescriptor* ChecksumField(const google::protobuf::Message& message) {
  const google::protobuf::FieldDescriptor* field =
      message.GetDescriptor()->FindFieldByName("dtrain_checksum");
  DT_CHECK(field != nullptr);
  return field;
}

uint64_t Fnv1a64Of(const std::string& bytes) {
  Fnv1a64 hash;
  hash.Add(bytes);
  return hash.value();
}

}  // namespace

uint64_t ContentChecksum(const google::protobuf::Message& message) {
  const auto* field = ChecksumField(message);
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::string bytes;
  if (reflection->HasField(message, field)) {
    std::unique_ptr<google::protobuf::Message> copy(message.New());
    copy->CopyFrom(message);
    copy->GetReflection()->ClearField(copy.get(), field);
    copy->SerializeToString(&bytes);
  } else {
    message.SerializeToString(&bytes);
  }
  return Fnv1a64Of(bytes);
}

void SealWithChecksum(google::protobuf::Message* message) {
  const auto* field = ChecksumField(*message);
  message->GetReflection()->ClearField(message, field);
  message->GetReflection()->SetUInt64(message, field, ContentChecksum(*message));
}

Status VerifyChecksum(const google::protobuf::Message& message, const std::string& path) {
  const auto* field = ChecksumField(message);
  const google::protobuf::Reflection* reflection = message.GetReflection();
  if (!reflection->HasField(message, field)) return Status::Ok();
  if (reflection->GetUInt64(message, field) == ContentChecksum(message)) return Status::Ok();
  return ChecksumMismatch(path);
}

Status ChecksumMismatch(const std::string& path) {
  return DataLoss(path +
                  ": its contents do not match the checksum written with them: the file "
                  "was damaged after it was written (a bad disk, an incomplete copy?)");
}

}  // namespace dtrain
