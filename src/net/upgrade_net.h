// Caffe's own upgrade path for old net files, as BVLC Caffe's UpgradeNetAsNeeded applies it on
// load: V0 layers (`layers { layer { type: "conv" } }`, 2013) become V1 layers, old data-layer
// transformation fields move into transform_param, V1 layers (`layers { type: CONVOLUTION }`,
// 2014) become current `layer`s, legacy `input` fields become an Input layer, and BatchNorm
// layers that list three param specs get lr_mult/decay_mult 0. docs/upgrade.md lists every rule.
//
// Pure functions over protobuf values: no I/O, no logging, no global state; thread-safe. Blobs
// (a .caffemodel's weights) travel with their layers through every step. A file that cannot be
// converted without losing what it says (both `layer` and `layers`, an unknown V0 type, a V0
// field with no home in its layer's type, a padding layer feeding anything but one conv/pool)
// is an InvalidArgument naming the layer; Caffe logs these and carries on. So is a V1 layer that
// would upgrade to no type (its type unset or NONE) and, in a binary file, an enum value of a
// V1/V0 layer that Caffe's schema has no name for (a V1 type of 999 or -1: protobuf would read it
// as unset; net/unnamed_enum_values.h), each naming the layer's index and name, the field and
// the value.
#pragma once

#include <string>

#include "core/status.h"
#include "proto/net.pb.h"

namespace dtrain {

// Which of the upgrades a net needed (or was given).
struct NetUpgrades {
  bool v0 = false;              // V0LayerParameter inside `layers`
  bool data_transform = false;  // scale/mean_file/crop_size/mirror in a V1 data layer's param
  bool v1 = false;              // V1LayerParameter in `layers`
  bool input = false;           // top-level input/input_shape/input_dim
  bool batch_norm = false;      // BatchNorm with three param specs

  bool any() const { return v0 || data_transform || v1 || input || batch_norm; }
  // "V0 layer syntax, V1 data transformation fields, V1 layer syntax", for log lines.
  std::string Describe() const;
};

NetUpgrades NetUpgradesNeeded(const NetParameter& net);

// V0 -> V1: padding layers folded into the conv/pool they feed, every V0 field moved to its V1
// *_param, the V0 type string turned into the V1 enum. Layers without a nested V0 layer pass
// through unchanged.
StatusOr<NetParameter> UpgradeV0Net(const NetParameter& net);

// Moves scale/mean_file/crop_size/mirror out of the data_param/image_data_param/
// window_data_param of V1 DATA/IMAGE_DATA/WINDOW_DATA layers into their transform_param.
void UpgradeDataTransformation(NetParameter* net);

// V1 -> current: `layers` become `layer` (type enum -> type string; blobs_lr, weight_decay,
// param names and blob_share_mode -> ParamSpec; every *_param, include/exclude, loss_weight and
// blobs copied).
StatusOr<NetParameter> UpgradeV1Net(const NetParameter& net);

// A BatchNorm layer with exactly three param specs (the old definition made users freeze its
// statistics by hand) gets lr_mult 0 and decay_mult 0 on each, its names kept (BVLC master).
void UpgradeBatchNorm(NetParameter* net);

// Every upgrade `net` needs, in Caffe's order; `applied` (optional) says which ran. A net that
// needs none comes back unchanged.
StatusOr<NetParameter> UpgradeNet(const NetParameter& net, NetUpgrades* applied = nullptr);

}  // namespace dtrain
