// The hosts of an EC2 cluster from the JSON that `aws ec2 describe-instances` prints:
//
//   {"Reservations": [{"Instances": [{"InstanceId": "i-0abc...", "State": {"Name": "running"},
//     "PrivateIpAddress": "10.0.1.12", "LaunchTime": "2026-11-30T08:00:00+00:00",
//     "AmiLaunchIndex": 0, "Tags": [{"Key": "cluster", "Value": "dtrain"}]}, ...]}, ...]}
//
// Only instances in state "running" count (a stopped or pending one has no place in a hostfile),
// and, when a tag filter is given, only those carrying that tag with that value. Each gives its
// private IPv4 address, the one the instances reach each other by inside their VPC. The order is
// stable whatever order EC2 lists them in: by LaunchTime (as text, which orders AWS's ISO 8601
// times), then AmiLaunchIndex, then InstanceId; so the first host, the master, is the instance
// launched first.
//
// Required fields: Reservations[].Instances[], and in every instance InstanceId and State.Name;
// PrivateIpAddress in every running one. Tags, LaunchTime and AmiLaunchIndex are optional.
// Pure functions over values; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

struct Ec2TagFilter {
  std::string key;
  std::string value;
};

// "KEY=VALUE" (split at the first '='; KEY not empty; VALUE may be).
StatusOr<Ec2TagFilter> ParseEc2TagFilter(const std::string& text);

// The private addresses of the running (and matching) instances in `json_text`, in the order
// above. `origin` (the file name) starts every error: "instances.json: Reservations[0].Instances[1]
// (i-0abc...): no PrivateIpAddress". None matching is an error that says how many instances there
// were.
StatusOr<std::vector<std::string>> Ec2PrivateAddresses(const std::string& json_text,
                                                       const std::string& origin,
                                                       const std::optional<Ec2TagFilter>& tag);

}  // namespace dtrain
