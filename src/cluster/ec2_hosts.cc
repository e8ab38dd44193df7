#include "cluster/ec2_hosts.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>

namespace dtrain {
namespace {

using nlohmann::json;

struct Instance {
  std::string launch_time;
  long long launch_index = 0;
  std::string id;
  std::string address;
};

// A string field of `object`, or "" when absent; an error when present but not a string.
StatusOr<std::string> OptionalString(const json& object, const char* key,
                                     const std::string& where) {
  auto it = object.find(key);
  if (it == object.end()) return std::string();
  if (!it->is_string()) return InvalidArgument(where + ": " + key + " is not a string");
  return it->get<std::string>();
}

StatusOr<std::string> RequiredString(const json& object, const char* key,
                                     const std::string& where) {
  if (!object.contains(key)) return InvalidArgument(where + ": no " + key);
  return OptionalString(object, key, where);
}

StatusOr<bool> HasTag(const json& instance, const Ec2TagFilter& tag, const std::string& where) {
  auto tags = instance.find("Tags");
  if (tags == instance.end()) return false;
  if (!tags->is_array()) return InvalidArgument(where + ": Tags is not an array");
  for (size_t i = 0; i < tags->size(); ++i) {
    const json& t = (*tags)[i];
    const std::string at = where + ".Tags[" + std::to_string(i) + "]";
    if (!t.is_object()) return InvalidArgument(at + " is not an object");
    DT_ASSIGN_OR_RETURN(std::string key, RequiredString(t, "Key", at));
    DT_ASSIGN_OR_RETURN(std::string value, OptionalString(t, "Value", at));
    if (key == tag.key && value == tag.value) return true;
  }
  return false;
}

}  // namespace

StatusOr<Ec2TagFilter> ParseEc2TagFilter(const std::string& text) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    return InvalidArgument("bad tag filter '" + text + "' (expected KEY=VALUE)");
  }
  return Ec2TagFilter{text.substr(0, equals), text.substr(equals + 1)};
}

StatusOr<std::vector<std::string>> Ec2PrivateAddresses(const std::string& json_text,
                                                       const std::string& origin,
                                                       const std::optional<Ec2TagFilter>& tag) {
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::exception& e) {  // parse_error; out_of_range for a number like 1e999
    return InvalidArgument(origin + ": not valid JSON: " + e.what());
  }
  if (!root.is_object() || !root.contains("Reservations") || !root["Reservations"].is_array()) {
    return InvalidArgument(origin +
                           ": no Reservations array (expected the output of "
                           "`aws ec2 describe-instances --output json`)");
  }
  std::vector<Instance> chosen;
  int instances = 0, running = 0;
  const json& reservations = root["Reservations"];
  for (size_t r = 0; r < reservations.size(); ++r) {
    const std::string at_r = origin + ": Reservations[" + std::to_string(r) + "]";
    const json& reservation = reservations[r];
    if (!reservation.is_object() || !reservation.contains("Instances") ||
        !reservation["Instances"].is_array()) {
      return InvalidArgument(at_r + ": no Instances array");
    }
    const json& list = reservation["Instances"];
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string where = at_r + ".Instances[" + std::to_string(i) + "]";
      const json& instance = list[i];
      if (!instance.is_object()) return InvalidArgument(where + " is not an object");
      ++instances;
      Instance found;
      DT_ASSIGN_OR_RETURN(found.id, RequiredString(instance, "InstanceId", where));
      const std::string named = where + " (" + found.id + ")";
      if (!instance.contains("State") || !instance["State"].is_object()) {
        return InvalidArgument(named + ": no State object");
      }
      DT_ASSIGN_OR_RETURN(std::string state,
                          RequiredString(instance["State"], "Name", named + ".State"));
      if (state != "running") continue;
      ++running;
      if (tag) {
        DT_ASSIGN_OR_RETURN(bool has, HasTag(instance, *tag, named));
        if (!has) continue;
      }
      DT_ASSIGN_OR_RETURN(found.address, RequiredString(instance, "PrivateIpAddress", named));
      if (found.address.empty()) return InvalidArgument(named + ": PrivateIpAddress is empty");
      DT_ASSIGN_OR_RETURN(found.launch_time, OptionalString(instance, "LaunchTime", named));
      if (instance.contains("AmiLaunchIndex")) {
        if (!instance["AmiLaunchIndex"].is_number_integer()) {
          return InvalidArgument(named + ": AmiLaunchIndex is not an integer");
        }
        found.launch_index = instance["AmiLaunchIndex"].get<long long>();
      }
      chosen.push_back(found);
    }
  }
  if (chosen.empty()) {
    std::string what = origin + ": no running instance" +
                       (tag ? " tagged " + tag->key + "=" + tag->value : std::string()) + " (" +
                       std::to_string(instances) + " instances, " + std::to_string(running) +
                       " running)";
    return InvalidArgument(what);
  }
  std::sort(chosen.begin(), chosen.end(), [](const Instance& a, const Instance& b) {
    return std::tie(a.launch_time, a.launch_index, a.id) <
           std::tie(b.launch_time, b.launch_index, b.id);
  });
  std::vector<std::string> addresses;
  for (const Instance& instance : chosen) addresses.push_back(instance.address);
  return addresses;
}

}  // namespace dtrain
