#include "net/filler_check.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <vector>

#include "core/filler.h"
#include "proto/filler.pb.h"

namespace dtrain {
namespace {

namespace pb = google::protobuf;

// Every FillerParameter set inside `message`, with its field path
// ("convolution_param.weight_filler").
void FindFillers(const pb::Message& message, const std::string& path,
                 std::vector<std::pair<std::string, const FillerParameter*>>* found) {
  if (const auto* filler = dynamic_cast<const FillerParameter*>(&message)) {
    found->push_back({path, filler});
    return;
  }
  const pb::Reflection* reflection = message.GetReflection();
  std::vector<const pb::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const pb::FieldDescriptor* field : fields) {
    if (field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    const std::string name = (path.empty() ? "" : path + ".") + field->name();
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        FindFillers(reflection->GetRepeatedMessage(message, field, i),
                    name + "[" + std::to_string(i) + "]", found);
      }
    } else {
      FindFillers(reflection->GetMessage(message, field), name, found);
    }
  }
}

}  // namespace

Status CheckFillers(const NetParameter& net, const std::string& source) {
  std::string problems;
  int count = 0;
  for (const LayerParameter& layer : net.layer()) {
    std::vector<std::pair<std::string, const FillerParameter*>> fillers;
    FindFillers(layer, "", &fillers);
    for (const auto& [path, filler] : fillers) {
      const Status known = ValidateFiller(*filler);
      if (known.ok()) continue;
      problems += "\n  layer '" + layer.name() + "': " + path + ": " + known.message();
      ++count;
    }
  }
  if (count == 0) return Status::Ok();
  return Unsupported((source.empty() ? "" : source + ": ") + std::to_string(count) +
                     " filler(s) dtrain does not have:" + problems);
}

}  // namespace dtrain
