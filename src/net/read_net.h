// Reading net files the way Caffe does: parse, then apply Caffe's upgrade path
// (net/upgrade_net.h), so that V0 and V1 prototxt and .caffemodel files load as current ones.
// Every command that reads a net or a weights file goes through here.
//
// Logs one INFO line naming the file and the upgrades whenever a file needed any. A file that
// defines no layer at all (empty, or cut short) is an error. Errors name the file. Stateless;
// thread-safe.
#pragma once

#include <string>

#include "core/status.h"
#include "proto/net.pb.h"

namespace dtrain {

// Upgrades `net`, read from `source` (a path, or a description such as "s.prototxt
// (train_net_param)" for a net inside a solver), and logs what changed.
StatusOr<NetParameter> UpgradeNetAsNeeded(const NetParameter& net, const std::string& source);

// A prototxt net file, upgraded.
StatusOr<NetParameter> ReadNetParameter(const std::string& path);

// A binary NetParameter (.caffemodel) file, upgraded; its blobs come along.
StatusOr<NetParameter> ReadBinaryNetParameter(const std::string& path);

}  // namespace dtrain
